// Helpers of the second-factor tests (not a test file itself): an app whose clock a test moves on by
// whole TOTP steps (each code is accepted once, so every use of a code is made at a later step),
// and the set-up of an authenticator app through the API.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, type SignedInUser, type Tap } from '../helper.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { CHEAP_ARGON2 } from '../helper.ts'

export const SECOND_FACTOR_REQUIRED = { code: 403, message: 'second factor required', reason: 'second_factor_required' }

export interface MfaApp {
  app: Awaited<ReturnType<typeof build>>
  /** the app's clock */
  now: () => number
  /** move the app's clock to the next 30-second step: a new code is good there */
  nextStep: () => void
  /** stop the app's clock (a backoff's lock then lasts however slow the machine is), and start it again */
  hold: () => void
  release: () => void
}

export async function buildMfaApp (t: Tap, env: Record<string, string> = {}, deps: Parameters<typeof build>[2] = {}): Promise<MfaApp> {
  let shift = 0
  let held: number | null = null
  const now = () => held ?? Date.now() + shift
  const app = await build(t, { ...CHEAP_ARGON2, ...env }, { now, ...deps })
  return {
    app,
    now,
    nextStep: () => { shift += 30_000; if (held !== null) held += 30_000 },
    hold: () => { held = now() },
    release: () => { if (held !== null) shift = held - Date.now(); held = null }
  }
}

export const inject = (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) =>
  app.inject({ method, url: `/api/v1${url}`, headers, ...(payload === undefined ? {} : { payload }) })

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** the claims of a JWT, unverified */
export const claimsOf = (jwt: string): Record<string, unknown> => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'))

export interface Enrolled { secret: string, recoveryCodes: string[], token: string, confirm: LightMyRequestResponse }

/** set up and confirm an authenticator app for a signed-in user (fresh from sign-in); its secret and recovery codes */
export async function enrolTotp (m: MfaApp, user: SignedInUser): Promise<Enrolled> {
  const begun = await inject(m.app, 'POST', '/auth/mfa/totp', user.auth)
  if (begun.statusCode !== 200) throw new Error(`set-up refused: ${begun.body}`)
  const { secret } = begun.json() as { secret: string }
  const confirm = await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: codeAt(secret, m.now()) })
  const body = confirm.json() as { status: string, recoveryCodes: string[], token: string }
  if (body.status !== 'success') throw new Error(`confirmation refused: ${confirm.body}`)
  m.nextStep()
  return { secret, recoveryCodes: body.recoveryCodes, token: body.token, confirm }
}

/** sign in with the password (an account with a second factor: level 1) */
export async function passwordSignin (app: FastifyInstance, user: { email: string, password: string }) {
  const res = await inject(app, 'POST', '/auth/signin', {}, { email: user.email, password: user.password, token: true })
  const cookie = res.cookies.find((c) => c.name === 'sid')
  return { res, body: res.json() as { status: string, token?: string, mfaRequired?: boolean }, cookie: cookie ? `sid=${cookie.value}` : '' }
}
