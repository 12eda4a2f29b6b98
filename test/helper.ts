// Test helper: build(t) -> the app on a fresh database (embedded PGlite, or a new PostgreSQL database
// per call when TEST_DATABASE_URL is set), closed at teardown.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppDeps } from '../src/app.ts'
import { loadConfig, testDatabaseUrl, type Config } from '../src/config.ts'
import { createDatabase, type Database } from '../src/db/client.ts'
import { migrateDatabase } from '../src/db/migrate.ts'

type Tap = { teardown: (fn: () => unknown) => void }

export const onPostgres = Boolean(testDatabaseUrl)
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdefghijklmnop'

let template: Promise<PGlite> | undefined

/** a fresh, migrated database that lives until the test ends */
export async function freshDatabase (t: Tap): Promise<Database> {
  if (testDatabaseUrl) {
    const name = `pir_test_${process.pid}_${randomBytes(4).toString('hex')}`
    const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create database ${name}`)
    const url = new URL(testDatabaseUrl)
    url.pathname = `/${name}`
    await migrateDatabase({ url: url.href })
    const database = await createDatabase({ url: url.href })
    t.teardown(async () => {
      await database.close()
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.end()
    })
    return database
  }
  // Migrating once and cloning the result keeps many builds in one file cheap.
  template ??= (async () => {
    const pg = new PGlite()
    await migrateDatabase({ pglite: pg })
    return pg
  })()
  const pg = await (await template).clone() as PGlite
  const database = await createDatabase({ pglite: pg })
  t.teardown(() => database.close())
  return database
}

export function testConfig (t: Tap, env: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-test-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return loadConfig({
    NODE_ENV: 'test',
    TLS: 'off',
    ALLOW_HTTP: 'true',
    CAPTCHA: 'off',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-0123456789abcdefghijkl',
    WORKERS: '0',
    ...env
  })
}

export interface Built { app: FastifyInstance, config: Config, database: Database }

export async function build (t: Tap, env: Record<string, string> = {}, deps: AppDeps = {}): Promise<FastifyInstance & { config: Config }> {
  const config = testConfig(t, env)
  const database = deps.database ?? await freshDatabase(t)
  const app = await buildApp(config, { ...deps, database })
  t.teardown(() => app.close())
  await app.ready()
  return Object.assign(app, { config })
}

/** the session cookie of a response, as a Cookie header value */
export function sessionCookie (res: LightMyRequestResponse): string | undefined {
  const c = res.cookies.find((x) => x.name === 'sid')
  return c ? `sid=${c.value}` : undefined
}

let seq = 0
export function uniqueEmail (prefix = 'user'): string {
  return `${prefix}-${process.pid}-${++seq}@example.com`
}

export const GOOD_PASSWORD = 'correct horse battery staple'

/** sign up and sign in; returns the JWT, the cookie and the e-mail */
export async function signedInUser (app: FastifyInstance, opts: { email?: string, password?: string, body?: Record<string, unknown> } = {}) {
  const email = opts.email ?? uniqueEmail()
  const password = opts.password ?? GOOD_PASSWORD
  const up = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email, password, token: 'captcha', ...opts.body } })
  if (up.json().status !== 'success') throw new Error(`signup failed: ${up.body}`)
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password, token: true } })
  const body = res.json()
  if (body.status !== 'success') throw new Error(`signin failed: ${res.body}`)
  return { email, password, token: body.token as string, cookie: sessionCookie(res)!, auth: { authorization: `Bearer ${body.token}` } }
}
