// Small helpers shared by the auth tests (not a test file itself).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Database } from '../../src/db/client.ts'
import { CHEAP_ARGON2, GOOD_PASSWORD } from '../helper.ts'

/** the lowest argon2 cost the config accepts: the same code path, a fraction of the time */
export const FAST_ARGON2 = CHEAP_ARGON2

export const WRONG_CREDENTIALS = { status: 'error', fieldError: { field: 'password', message: 'Wrong e-mail or password' } }
export const ACCESS_DENIED = { code: 401, message: 'access denied', reason: 'unauthenticated' }
export const PROMO_REFUSED = { status: 'error', fieldError: { field: 'promocode', message: 'Promo code is invalid, expired or used up to the limit' } }

export const post = (app: FastifyInstance, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) })

export const signup = (app: FastifyInstance, body: Record<string, unknown>) =>
  post(app, '/auth/signup', { password: GOOD_PASSWORD, token: 'captcha', ...body })

export const signin = (app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(app, '/auth/signin', { password: GOOD_PASSWORD, ...body }, headers)

export const refresh = (app: FastifyInstance, cookie?: string, headers: Record<string, string> = {}) =>
  post(app, '/auth/token/refresh', undefined, cookie ? { cookie, ...headers } : headers)

export const info = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token}` } })

/** the claims of a JWT, unverified */
export function claims (jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'))
}

/** the raw Set-Cookie line of the session cookie */
export function setCookieLine (res: LightMyRequestResponse): string | undefined {
  const set = res.headers['set-cookie']
  const lines = Array.isArray(set) ? set : set ? [set] : []
  return lines.find((l) => l.startsWith('sid='))
}

/**
 * Run statements in one transaction with the database's triggers off (session_replication_role =
 * replica, for that transaction only): a session ended this way is neither recorded nor announced,
 * as if its NOTIFY had been lost. PostgreSQL through postgres.js refuses a bare BEGIN, hence begin().
 */
export async function withoutTriggers (database: Database, statements: string[]): Promise<void> {
  if (database.sql) {
    await database.sql.begin(async (tx) => {
      await tx.unsafe('set local session_replication_role = replica')
      for (const s of statements) await tx.unsafe(s)
    })
    return
  }
  await database.pglite!.transaction(async (tx) => {
    await tx.exec('set local session_replication_role = replica')
    for (const s of statements) await tx.exec(s)
  })
}
