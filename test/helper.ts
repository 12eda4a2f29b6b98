// Test helper: build(t) -> the app on a fresh database (embedded PGlite, or a new PostgreSQL database
// per call when TEST_DATABASE_URL is set, reached through TEST_POOLER_URL's PgBouncer when that is
// set too), closed at teardown.
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppDeps } from '../src/app.ts'
import { loadConfig, testDatabaseUrl, testEventsUrl, type Config } from '../src/config.ts'
import { createDatabase, type Database } from '../src/db/client.ts'
import { loggerOptions } from '../src/logger.ts'
import { createFromTemplate, pgliteTemplateDir, scratch, serviceDatabase } from './db-template.ts'
import { createLogCapture, type LogCapture } from './log-capture.ts'
import { checkResponsesIn } from './response-check.ts'
import { openPglite } from '../src/db/pglite.ts'

type Tap = { teardown: (fn: () => unknown) => void, fail?: (message: string, extra: Record<string, unknown>) => unknown }

export const onPostgres = Boolean(testDatabaseUrl)
/**
 * the lowest argon2 cost the configuration accepts, every test's default: the same code path at a
 * fraction of the CPU (the production cost is src/config.ts's default, checked in
 * test/foundation/config.test.ts)
 */
export const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdefghijklmnop'

/** a fresh, migrated database that lives until the test ends */
export async function freshDatabase (t: Tap): Promise<Database> {
  if (testDatabaseUrl) {
    const name = `pir_test_${process.pid}_${randomBytes(4).toString('hex')}`
    const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} })
    await createFromTemplate(admin, name)
    // through the pooler when TEST_POOLER_URL names one, as the service runs behind PgBouncer
    const database = await createDatabase(serviceDatabase(name))
    t.teardown(async () => {
      await database.close()
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.end()
    })
    return database
  }
  const { pg, dir } = idleEmbedded.pop() ?? await newEmbedded()
  const database = await createDatabase({ pglite: pg })
  t.teardown(async () => {
    if (!pg.closed && await emptied(pg)) {
      idleEmbedded.push({ pg, dir })
      return
    }
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return database
}

// An embedded database costs about 0.8 s of CPU to start (a copy of the template, PGlite's start);
// emptying one takes a few milliseconds. So a test's embedded database is emptied at its end and
// given to the next test of the process, unless the test closed it or changed its schema.
interface Embedded { pg: PGlite, dir: string }
const idleEmbedded: Embedded[] = []
// Their folders live in memory (/dev/shm): they go with the process, or every test process would
// leave its idle databases behind
process.once('exit', () => {
  for (const { dir } of idleEmbedded) rmSync(dir, { recursive: true, force: true })
})

/**
 * Close the idle embedded databases: the end of a group (test/group.ts). An open PGlite keeps the
 * process alive for up to 10 s after its last statement (PostgreSQL's timer for flushing its
 * statistics, a timer of the process here), so a group would wait that out before it ends.
 */
export async function closeIdleDatabases (): Promise<void> {
  for (const { pg, dir } of idleEmbedded.splice(0)) {
    await pg.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function newEmbedded (): Promise<Embedded> {
  const dir = mkdtempSync(join(scratch, 'pir-test-db-'))
  cpSync(await pgliteTemplateDir(), dir, { recursive: true })
  // the data only has to last the test: no fsync
  const pg = await openPglite(dir, { relaxedDurability: true })
  shapeOfTemplate ??= await shapeOf(pg)
  return { pg, dir }
}

/** every object a test could have added, renamed or changed, as one hash */
const SHAPE = `select md5(coalesce(string_agg(x, ',' order by x), '')) as shape from (
  select n.nspname || '.' || c.relname || ':' || c.relkind::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
  union all select a.attrelid::regclass::text || '.' || a.attname || ':' || a.atttypid::regtype::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
  union all select tgrelid::regclass::text || ':' || tgname || ':' || tgenabled::text from pg_trigger where not tgisinternal
  union all select p.oid::regprocedure::text || ':' || md5(p.prosrc) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname not in ('pg_catalog', 'information_schema')
  union all select rolname from pg_roles
  union all select 'pgboss.queue:' || row(name, policy, retry_limit, retry_delay, retry_backoff, expire_seconds, retention_minutes, dead_letter, partition_name)::text
    from pgboss.queue
) objects(x)`
let shapeOfTemplate: string | undefined

async function shapeOf (pg: PGlite): Promise<string> {
  return (await pg.query<{ shape: string }>(SHAPE)).rows[0].shape
}

/**
 * The database as the template left it: session state discarded, every table that holds rows
 * emptied (drizzle's record of the migrations and pg-boss's version and queues kept, its clocks
 * reset), sequences back at their start. False when something else differs: that database is not
 * reused. Only the tables a test wrote to are truncated: TRUNCATE gives a table new files, and most
 * of a test's forty-odd tables are still empty at its end.
 */
async function emptied (pg: PGlite): Promise<boolean> {
  try {
    await pg.exec('discard all')
    await pg.exec(EMPTY)
    return await shapeOf(pg) === shapeOfTemplate
  } catch {
    return false
  }
}

const EMPTY = `do $$
declare
  t record;
  written text[] := '{}';
  has_rows boolean;
begin
  for t in select format('%I.%I', schemaname, tablename) as name from pg_tables
    where schemaname not in ('pg_catalog', 'information_schema', 'drizzle')
      and (schemaname, tablename) not in (('pgboss', 'version'), ('pgboss', 'queue'))
  loop
    execute format('select exists (select from %s)', t.name) into has_rows;
    if has_rows then written := written || t.name; end if;
  end loop;
  if cardinality(written) > 0 then execute 'truncate ' || array_to_string(written, ', ') || ' cascade'; end if;
  for t in select format('%I.%I', schemaname, sequencename) as name, start_value from pg_sequences
    where schemaname not in ('pg_catalog', 'information_schema', 'drizzle')
  loop
    perform setval(t.name, t.start_value, false);
  end loop;
  update pgboss.version set maintained_on = null, cron_on = null, monitored_on = null;
end $$`

export function testConfig (t: Tap, env: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-test-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return loadConfig({
    NODE_ENV: 'test',
    TLS: 'off',
    ALLOW_HTTP: 'true',
    // the public origin people use, as a proxy in front of this plain-HTTP app would serve it
    PUBLIC_URL: 'https://localhost:8443',
    CAPTCHA: 'off',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-0123456789abcdefghijkl',
    MFA_ENCRYPTION_KEY: 'test-mfa-encryption-key-0123456789abcdef',
    WORKERS: '0',
    // the suite's events transport (TEST_EVENTS_URL): LISTEN/NOTIFY, or a broker every app shares
    EVENTS_URL: testEventsUrl,
    ...CHEAP_ARGON2,
    ...env
  })
}

export interface Built { app: FastifyInstance, config: Config, database: Database }

const captures = new WeakMap<object, LogCapture>()

/** what an app built by build() logged; undefined when the test brought its own logger or LOG_LEVEL=silent */
export function logCapture (app: FastifyInstance): LogCapture | undefined {
  return captures.get(app)
}

/**
 * The app on a fresh database. Its log lines (the service's own logger options, at LOG_LEVEL, trace
 * unless env says otherwise) are captured in memory, not printed, and the test fails if any of them
 * carries a secret (test/log-capture.ts). A test that passes its own `deps.fastify.logger` keeps it.
 * Every response its inject returns is checked against its OpenAPI document (test/response-check.ts).
 */
export async function build (t: Tap, env: Record<string, string> = {}, deps: AppDeps = {}): Promise<FastifyInstance & { config: Config }> {
  const level = env.LOG_LEVEL ?? 'trace'
  const ownLogger = deps.fastify?.logger !== undefined || deps.fastify?.loggerInstance !== undefined
  const capture = ownLogger || level === 'silent' ? undefined : createLogCapture()
  // registered before the app's close: teardowns run last-first, so the check sees the closing lines
  capture?.assertNoLeaksIn(t)
  const config = testConfig(t, env)
  for (const s of [config.jwt.secret, ...config.jwt.previousSecrets, config.session.secret, ...config.session.previousSecrets, config.captcha.secret,
    config.stripe.secretKey, config.stripe.webhookSecret, config.ingest.token, GOOD_PASSWORD]) capture?.secret(s)
  const database = deps.database ?? await freshDatabase(t)
  const fastify = capture ? { ...deps.fastify, logger: { ...(loggerOptions(level) as object), stream: capture.stream } } : deps.fastify
  const app = await buildApp(config, { ...deps, database, fastify })
  if (capture) captures.set(app, capture)
  t.teardown(() => app.close())
  await app.ready()
  // every response app.inject returns, to the test or to a helper, must match the app's OpenAPI document
  checkResponsesIn(t, app)
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

// Shared by the tests: types and the sign-in helper

/** what the helpers need of a tap test: its teardown, and fail when they find a problem after the fact */
export type { Tap }

/** an account made through the API, not signed in */
export interface RegisteredUser { email: string, password: string }

/** a user signed in through the API: the JWT, the session cookie and the headers that carry the JWT */
export interface SignedInUser extends RegisteredUser {
  token: string
  /** the session cookie, as a Cookie header value */
  cookie: string
  auth: { authorization: string }
  /** the sign-in answer itself */
  res: LightMyRequestResponse
}

export interface SignInOptions {
  /** a new, unique address unless given */
  email?: string
  /** GOOD_PASSWORD unless given */
  password?: string
  /** sign up first (the default); false signs in an account that exists */
  signUp?: boolean
  /** more fields of the sign-up body: a promo code, an acquisition code */
  signUpBody?: Record<string, unknown>
}

/** sign up through the API (throws unless the answer is a success) */
export async function registeredUser (app: FastifyInstance, opts: Omit<SignInOptions, 'signUp'> = {}): Promise<RegisteredUser> {
  const email = opts.email ?? uniqueEmail()
  const password = opts.password ?? GOOD_PASSWORD
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email, password, token: 'captcha', ...opts.signUpBody } })
  if (res.json().status !== 'success') throw new Error(`signup failed: ${res.body}`)
  logCapture(app)?.secret(password)
  return { email, password }
}

/**
 * Sign up (unless `signUp: false`) and sign in through the API, asking for a JWT; throws unless both
 * answers are a success. The password, the JWT, the cookie and the session id in it are registered
 * as secrets of the app's log capture: none of them may reach a log line.
 */
export async function signedInUser (app: FastifyInstance, opts: SignInOptions = {}): Promise<SignedInUser> {
  const { email, password } = opts.signUp === false
    ? { email: opts.email ?? uniqueEmail(), password: opts.password ?? GOOD_PASSWORD }
    : await registeredUser(app, opts)
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password, token: true } })
  const body = res.json()
  if (body.status !== 'success') throw new Error(`signin failed: ${res.body}`)
  const cookie = sessionCookie(res)!
  const signed = cookie ? decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1)) : ''
  const capture = logCapture(app)
  for (const s of [password, body.token as string, signed, signed.slice(0, signed.lastIndexOf('.'))]) capture?.secret(s)
  return { email, password, token: body.token as string, cookie, auth: { authorization: `Bearer ${body.token}` }, res }
}
