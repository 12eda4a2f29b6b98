// The only reader of process.env: environment -> validated, typed Config.
import { randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseEnv as parseDotEnv } from 'node:util'
import envSchema from 'env-schema'
import { EnvSchema, type Env } from '../schemas/env.ts'
import { ConfigError } from './errors.ts'

export interface Config {
  env: Env['NODE_ENV']
  production: boolean
  host: string
  port: number
  publicUrl: string
  dataDir: string
  /** the generated development secrets (DATA_DIR/secrets.json), or null when both are set */
  secretsFile: string | null
  databaseUrl: string
  /** PostgreSQL: statements with parameters prepared once per connection (off behind a pooler that cannot keep them) */
  databasePrepare: boolean
  tls: { enabled: boolean, certFile: string, keyFile: string }
  trustProxy: string[]
  allowHttp: boolean
  jwt: { secret: string, previousSecrets: string[], ttl: number }
  /** idleTtl: seconds a session lives unused; absoluteTtl: seconds it lives at most, used or not */
  session: { secret: string, previousSecrets: string[], idleTtl: number, absoluteTtl: number }
  /** seconds between reads of the sessions ended since the last one (SESSION_RECONCILE_S) */
  sessionReconcileS: number
  captcha: { enabled: boolean, verifyUrl: string, secret: string }
  /** logLinks: the outbox log line carries the mailed link (development only: it holds a secret) */
  mail: { smtpUrl: string, from: string, outboxDir: string, logLinks: boolean }
  google: { clientIds: string[], certsUrl: string }
  stripe: { secretKey: string, webhookSecret: string, priceId: string, apiUrl: string }
  redisUrl: string
  workers: number
  queue: { jobExpireSeconds: number, maintenanceSeconds: number }
  ingest: { token: string, bodyLimit: number }
  signupFreeReports: number
  demoData: boolean
  logLevel: Env['LOG_LEVEL']
  corsOrigins: string[]
  sseHeartbeatS: number
  /** open streams one user may hold on this instance (SSE_MAX_STREAMS_PER_USER) */
  sseMaxStreamsPerUser: number
  /** seconds readiness answers 503 after SIGTERM before the listener closes (SHUTDOWN_READY_DELAY_S) */
  shutdownReadyDelayS: number
  metricsPort: number | null
  /** the metrics listener's address (loopback unless told otherwise) */
  metricsHost: string
  argon2: { memoryCost: number, timeCost: number, parallelism: number }
  /** argon2 jobs in libuv's thread pool at once (ARGON2_CONCURRENCY; default UV_THREADPOOL_SIZE - 1) */
  argon2Concurrency: number
  /** libuv's thread pool as the process was started with it (UV_THREADPOOL_SIZE; libuv's own default is 4) */
  threadPoolSize: number
  rateLimits: {
    signinEmail: number, signinIp: number, signupIp: number, recoveryEmail: number, recoveryIp: number,
    refresh: number, global: number, resend: number, authFailuresIp: number, promocodeUser: number,
    /** keys each limiter counts in process before new keys share one counter */
    localKeys: number
  }
}

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean)

function parseEnv (source: Record<string, string | undefined>): Env {
  // Empty strings mean "unset", as in most .env files.
  const data: Record<string, string> = {}
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== '') data[k] = v
  try {
    return envSchema<Env>({ schema: EnvSchema, data, dotenv: false })
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${describeIssue(err as Error & { errors?: EnvIssue[] })}`)
  }
}

interface EnvIssue { instancePath: string, message?: string }

// ajv says "env/TLS must be equal to constant, env/TLS must be equal to constant, …": one line naming
// the variable and what it accepts instead. The value itself is never echoed (it may be a secret).
function describeIssue (err: Error & { errors?: EnvIssue[] }): string {
  const issue = err.errors?.[0]
  if (!issue) return err.message.split('\n')[0]
  const name = issue.instancePath.replace(/^\//, '')
  const schema = (EnvSchema.properties as Record<string, { anyOf?: Array<{ const?: unknown }> }>)[name]
  const allowed = schema?.anyOf?.map((s) => s.const)
  if (allowed?.length && allowed.every((v) => v !== undefined)) return `${name} must be one of ${allowed.join(', ')}`
  return `${name} ${issue.message ?? 'is invalid'}`
}

function checkUrl (name: string, value: string, protocols: string[]): void {
  let ok = false
  try { ok = protocols.includes(new URL(value).protocol) } catch {}
  if (!ok) throw new ConfigError(`invalid configuration: ${name} must be a URL (${protocols.map((p) => p + '//').join(' or ')}…)`)
}

// proxy-addr (Fastify's trustProxy) takes addresses, CIDR ranges and a few names; anything else would
// throw a stack trace at start-up instead of this line.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])
function checkTrustProxy (entries: string[]): void {
  for (const entry of entries) {
    const [addr, bits, extra] = entry.split('/')
    const family = isIP(addr)
    const ok = PROXY_NAMES.has(entry) || (family !== 0 && extra === undefined && (bits === undefined ||
      (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))))
    if (!ok) throw new ConfigError('invalid configuration: TRUST_PROXY must be a comma list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal')
  }
}

// Development conveniences that production must never rely on.
function devSecrets (dataDir: string): { jwt: string, session: string } {
  const file = join(dataDir, 'secrets.json')
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    const secrets = { jwt: randomBytes(32).toString('base64url'), session: randomBytes(32).toString('base64url') }
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 })
    return secrets
  }
}

/**
 * The environment, with the `.env` file of the working directory (when there is one) filling what the
 * environment leaves unset: the environment wins, as with `node --env-file`. Node parses the file
 * (util.parseEnv, the same rules as --env-file), so no dotenv library is needed. The file cannot
 * set UV_THREADPOOL_SIZE: libuv has read it from the process's environment before this runs, and
 * the configuration sizes ARGON2_CONCURRENCY by the pool the process really has.
 */
export function environment (env: Record<string, string | undefined> = process.env, file = join(process.cwd(), '.env')): Record<string, string | undefined> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return env
    throw new ConfigError(`invalid configuration: ${file} cannot be read (${code})`)
  }
  const { UV_THREADPOOL_SIZE: _ignored, ...fromFile } = parseDotEnv(text)
  return { ...fromFile, ...env }
}

export function loadConfig (source: Record<string, string | undefined> = environment()): Config {
  const e = parseEnv(source)
  const production = e.NODE_ENV === 'production'
  const dataDir = resolve(e.DATA_DIR)
  if (production) refuseInProduction(e)
  checkFormats(e)
  const secrets = signingSecrets(e, dataDir)
  checkLifetimes(e)
  const captchaOn = captchaEnabled(e, production)
  const metricsPort = metricsPortOf(e)
  checkStripe(e, production)
  return toConfig(e, { production, dataDir, secrets, captchaOn, metricsPort })
}

const refuse = (name: string, why: string) => { throw new ConfigError(`invalid configuration: ${name} ${why} in production`) }

/** what production must have, and the development conveniences it must not rely on */
function refuseInProduction (e: Env): void {
  if (!e.JWT_SECRET) refuse('JWT_SECRET', 'must be set')
  if (!e.SESSION_SECRET) refuse('SESSION_SECRET', 'must be set')
  if (e.TLS === 'on' && (!e.TLS_CERT_FILE || !e.TLS_KEY_FILE)) refuse('TLS_CERT_FILE', 'and TLS_KEY_FILE must be set (no self-signed certificate)')
  if (e.CAPTCHA === 'off') refuse('CAPTCHA', 'cannot be off')
  if (!e.CAPTCHA_VERIFY_URL || !e.CAPTCHA_SECRET) refuse('CAPTCHA_VERIFY_URL', 'and CAPTCHA_SECRET must be set')
  if (!e.SMTP_URL) refuse('SMTP_URL', 'must be set (no mail outbox)')
  if (e.ALLOW_HTTP) refuse('ALLOW_HTTP', 'cannot be true')
  if (e.DEMO_DATA === 'on') refuse('DEMO_DATA', 'cannot be on')
  // a bearer secret that a guess could find: the ingest endpoint writes profile data
  if (e.INGEST_TOKEN && e.INGEST_TOKEN.length < 32) refuse('INGEST_TOKEN', 'must be at least 32 characters')
}

/** the TLS files come in pairs; URLs, proxy addresses and previous secrets are well formed */
function checkFormats (e: Env): void {
  if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) {
    throw new ConfigError(`invalid configuration: ${e.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} must be set with ${e.TLS_CERT_FILE ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'}`)
  }
  checkUrl('PUBLIC_URL', e.PUBLIC_URL, ['https:', 'http:'])
  if (e.DATABASE_URL) checkUrl('DATABASE_URL', e.DATABASE_URL, ['postgres:', 'postgresql:'])
  if (e.REDIS_URL) checkUrl('REDIS_URL', e.REDIS_URL, ['redis:', 'rediss:'])
  if (e.SMTP_URL) checkUrl('SMTP_URL', e.SMTP_URL, ['smtp:', 'smtps:'])
  if (e.CAPTCHA_VERIFY_URL) checkUrl('CAPTCHA_VERIFY_URL', e.CAPTCHA_VERIFY_URL, ['https:', 'http:'])
  checkTrustProxy(list(e.TRUST_PROXY))
  for (const name of ['JWT_PREVIOUS_SECRETS', 'SESSION_PREVIOUS_SECRETS'] as const) {
    if (list(e[name]).some((k) => Buffer.byteLength(k) < 32)) {
      throw new ConfigError(`invalid configuration: ${name} entries must be at least 32 bytes each`)
    }
  }
}

/** JWT_SECRET and SESSION_SECRET, or the generated development ones (generated: the file they are in) */
function signingSecrets (e: Env, dataDir: string): { jwt: string, session: string, generated: boolean } {
  const needDev = !e.JWT_SECRET || !e.SESSION_SECRET
  const generated = needDev ? devSecrets(dataDir) : undefined
  const jwt = e.JWT_SECRET || generated!.jwt
  const session = e.SESSION_SECRET || generated!.session
  if (Buffer.byteLength(jwt) < 32) throw new ConfigError('invalid configuration: JWT_SECRET must be at least 32 bytes')
  if (Buffer.byteLength(session) < 32) throw new ConfigError('invalid configuration: SESSION_SECRET must be at least 32 bytes')
  return { jwt, session, generated: needDev }
}

/** a token never outlives the session that issued it */
function checkLifetimes (e: Env): void {
  if (e.JWT_TTL > e.SESSION_IDLE_TTL) throw new ConfigError('invalid configuration: JWT_TTL must not exceed SESSION_IDLE_TTL')
  if (e.SESSION_IDLE_TTL > e.SESSION_ABSOLUTE_TTL) throw new ConfigError('invalid configuration: SESSION_IDLE_TTL must not exceed SESSION_ABSOLUTE_TTL')
}

// Unset CAPTCHA: on wherever a provider is configured (and always in production); a development
// machine without one gets `off`, so that `npm start` on a fresh clone can sign people up.
function captchaEnabled (e: Env, production: boolean): boolean {
  const on = e.CAPTCHA ? e.CAPTCHA === 'on' : (production || Boolean(e.CAPTCHA_VERIFY_URL))
  if (on && !e.CAPTCHA_VERIFY_URL) throw new ConfigError('invalid configuration: CAPTCHA_VERIFY_URL must be set when CAPTCHA is on')
  return on
}

function metricsPortOf (e: Env): number | null {
  const port = e.METRICS_PORT ? Number(e.METRICS_PORT) : null
  if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
    throw new ConfigError('invalid configuration: METRICS_PORT must be a port number')
  }
  return port
}

function checkStripe (e: Env, production: boolean): void {
  // Half a billing setup would take money without recording subscriptions (no webhook secret).
  const stripeParts = [e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET, e.STRIPE_PRICE_ID].filter(Boolean).length
  if (stripeParts > 0 && stripeParts < 3) {
    throw new ConfigError('invalid configuration: STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID must be set together')
  }
  // The Stripe client takes a protocol, host and port, no path.
  if (e.STRIPE_API_URL && !/^https?:\/\/[^/?#]+\/?$/.test(e.STRIPE_API_URL)) {
    throw new ConfigError('invalid configuration: STRIPE_API_URL must be http(s)://host[:port]')
  }
  if (production && e.STRIPE_API_URL.startsWith('http:')) refuse('STRIPE_API_URL', 'must be https')
}

interface Derived {
  production: boolean
  dataDir: string
  secrets: { jwt: string, session: string, generated: boolean }
  captchaOn: boolean
  metricsPort: number | null
}

/** the checked environment, as the service reads it */
function toConfig (e: Env, { production, dataDir, secrets, captchaOn, metricsPort }: Derived): Config {
  return {
    env: e.NODE_ENV,
    production,
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    dataDir,
    secretsFile: secrets.generated ? join(dataDir, 'secrets.json') : null,
    databaseUrl: e.DATABASE_URL,
    databasePrepare: e.DATABASE_PREPARE === 'on',
    tls: { enabled: e.TLS === 'on', certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE },
    trustProxy: list(e.TRUST_PROXY),
    allowHttp: e.ALLOW_HTTP,
    jwt: { secret: secrets.jwt, previousSecrets: list(e.JWT_PREVIOUS_SECRETS), ttl: e.JWT_TTL },
    session: { secret: secrets.session, previousSecrets: list(e.SESSION_PREVIOUS_SECRETS), idleTtl: e.SESSION_IDLE_TTL, absoluteTtl: e.SESSION_ABSOLUTE_TTL },
    sessionReconcileS: e.SESSION_RECONCILE_S,
    captcha: { enabled: captchaOn, verifyUrl: e.CAPTCHA_VERIFY_URL, secret: e.CAPTCHA_SECRET },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: join(dataDir, 'outbox'), logLinks: e.NODE_ENV === 'development' },
    google: { clientIds: list(e.GOOGLE_CLIENT_IDS), certsUrl: e.GOOGLE_CERTS_URL },
    stripe: { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, priceId: e.STRIPE_PRICE_ID, apiUrl: e.STRIPE_API_URL },
    redisUrl: e.REDIS_URL,
    workers: e.WORKERS,
    queue: { jobExpireSeconds: e.REPORT_JOB_EXPIRE_S, maintenanceSeconds: e.QUEUE_MAINTENANCE_S },
    ingest: { token: e.INGEST_TOKEN, bodyLimit: e.INGEST_BODY_LIMIT },
    signupFreeReports: e.SIGNUP_FREE_REPORTS,
    demoData: e.DEMO_DATA ? e.DEMO_DATA === 'on' : e.NODE_ENV === 'development',
    logLevel: e.LOG_LEVEL,
    corsOrigins: list(e.CORS_ORIGINS),
    sseHeartbeatS: e.SSE_HEARTBEAT_S,
    sseMaxStreamsPerUser: e.SSE_MAX_STREAMS_PER_USER,
    shutdownReadyDelayS: e.SHUTDOWN_READY_DELAY_S,
    metricsPort,
    metricsHost: e.METRICS_HOST,
    argon2: { memoryCost: e.ARGON2_MEMORY_KIB, timeCost: e.ARGON2_TIME_COST, parallelism: e.ARGON2_PARALLELISM },
    argon2Concurrency: e.ARGON2_CONCURRENCY || Math.max(1, e.UV_THREADPOOL_SIZE - 1),
    threadPoolSize: e.UV_THREADPOOL_SIZE,
    rateLimits: {
      signinEmail: e.RATE_LIMIT_SIGNIN_EMAIL,
      signinIp: e.RATE_LIMIT_SIGNIN_IP,
      signupIp: e.RATE_LIMIT_SIGNUP_IP,
      recoveryEmail: e.RATE_LIMIT_RECOVERY_EMAIL,
      recoveryIp: e.RATE_LIMIT_RECOVERY_IP,
      refresh: e.RATE_LIMIT_REFRESH,
      promocodeUser: e.RATE_LIMIT_PROMOCODE_USER,
      global: e.RATE_LIMIT_GLOBAL,
      resend: e.RATE_LIMIT_RESEND,
      authFailuresIp: e.RATE_LIMIT_AUTH_FAILURES_IP,
      localKeys: e.RATE_LIMIT_LOCAL_KEYS
    }
  }
}

// The test suite's database choice, read here so that nothing else touches process.env.
export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? ''
