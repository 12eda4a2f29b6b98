// The only reader of process.env: environment -> validated, typed Config.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import envSchema from 'env-schema'
import { EnvSchema, type Env } from '../schemas/env.ts'

export interface Config {
  env: Env['NODE_ENV']
  production: boolean
  host: string
  port: number
  publicUrl: string
  dataDir: string
  databaseUrl: string
  tls: { enabled: boolean, certFile: string, keyFile: string }
  trustProxy: string[]
  allowHttp: boolean
  jwt: { secret: string, previousSecrets: string[], ttl: number }
  session: { secret: string, ttl: number }
  captcha: { enabled: boolean, verifyUrl: string, secret: string }
  mail: { smtpUrl: string, from: string, outboxDir: string }
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
  metricsPort: number | null
  argon2: { memoryCost: number, timeCost: number, parallelism: number }
  rateLimits: {
    signinEmail: number, signinIp: number, signupIp: number, recoveryEmail: number, recoveryIp: number,
    refresh: number, global: number
  }
}

export class ConfigError extends Error {}

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean)

function parseEnv (source: Record<string, string | undefined>): Env {
  // Empty strings mean "unset", as in most .env files.
  const data: Record<string, string> = {}
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== '') data[k] = v
  try {
    return envSchema<Env>({ schema: EnvSchema, data, dotenv: false })
  } catch (err) {
    // ajv says "env/PORT must be integer": keep it to one line naming the variable.
    const msg = (err as Error).message.split('\n')[0].replace(/^env\//, '').replace(/^env /, '')
    throw new ConfigError(`invalid configuration: ${msg}`)
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

export function loadConfig (source: Record<string, string | undefined> = process.env): Config {
  const e = parseEnv(source)
  const production = e.NODE_ENV === 'production'
  const dataDir = resolve(e.DATA_DIR)
  const refuse = (name: string, why: string) => { throw new ConfigError(`invalid configuration: ${name} ${why} in production`) }

  if (production) {
    if (!e.JWT_SECRET) refuse('JWT_SECRET', 'must be set')
    if (!e.SESSION_SECRET) refuse('SESSION_SECRET', 'must be set')
    if (e.TLS === 'on' && (!e.TLS_CERT_FILE || !e.TLS_KEY_FILE)) refuse('TLS_CERT_FILE', 'and TLS_KEY_FILE must be set (no self-signed certificate)')
    if (e.CAPTCHA === 'off') refuse('CAPTCHA', 'cannot be off')
    if (!e.CAPTCHA_VERIFY_URL || !e.CAPTCHA_SECRET) refuse('CAPTCHA_VERIFY_URL', 'and CAPTCHA_SECRET must be set')
    if (!e.SMTP_URL) refuse('SMTP_URL', 'must be set (no mail outbox)')
    if (e.ALLOW_HTTP) refuse('ALLOW_HTTP', 'cannot be true')
    if (e.DEMO_DATA === 'on') refuse('DEMO_DATA', 'cannot be on')
  }
  const needDev = !e.JWT_SECRET || !e.SESSION_SECRET
  const generated = needDev ? devSecrets(dataDir) : undefined
  const jwtSecret = e.JWT_SECRET || generated!.jwt
  const sessionSecret = e.SESSION_SECRET || generated!.session
  if (Buffer.byteLength(jwtSecret) < 32) throw new ConfigError('invalid configuration: JWT_SECRET must be at least 32 bytes')
  if (Buffer.byteLength(sessionSecret) < 32) throw new ConfigError('invalid configuration: SESSION_SECRET must be at least 32 bytes')
  if (e.JWT_TTL > e.SESSION_TTL) throw new ConfigError('invalid configuration: JWT_TTL must not exceed SESSION_TTL')
  // Unset CAPTCHA: on wherever a provider is configured (and always in production); a development
  // machine without one gets `off`, so that `npm start` on a fresh clone can sign people up.
  const captchaOn = e.CAPTCHA ? e.CAPTCHA === 'on' : (production || Boolean(e.CAPTCHA_VERIFY_URL))
  if (captchaOn && !e.CAPTCHA_VERIFY_URL) throw new ConfigError('invalid configuration: CAPTCHA_VERIFY_URL must be set when CAPTCHA is on')
  const metricsPort = e.METRICS_PORT ? Number(e.METRICS_PORT) : null
  if (metricsPort !== null && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort < 65536)) {
    throw new ConfigError('invalid configuration: METRICS_PORT must be a port number')
  }

  return {
    env: e.NODE_ENV,
    production,
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    tls: { enabled: e.TLS === 'on', certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE },
    trustProxy: list(e.TRUST_PROXY),
    allowHttp: e.ALLOW_HTTP,
    jwt: { secret: jwtSecret, previousSecrets: list(e.JWT_PREVIOUS_SECRETS), ttl: e.JWT_TTL },
    session: { secret: sessionSecret, ttl: e.SESSION_TTL },
    captcha: { enabled: captchaOn, verifyUrl: e.CAPTCHA_VERIFY_URL, secret: e.CAPTCHA_SECRET },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: join(dataDir, 'outbox') },
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
    metricsPort,
    argon2: { memoryCost: e.ARGON2_MEMORY_KIB, timeCost: e.ARGON2_TIME_COST, parallelism: e.ARGON2_PARALLELISM },
    rateLimits: {
      signinEmail: e.RATE_LIMIT_SIGNIN_EMAIL,
      signinIp: e.RATE_LIMIT_SIGNIN_IP,
      signupIp: e.RATE_LIMIT_SIGNUP_IP,
      recoveryEmail: e.RATE_LIMIT_RECOVERY_EMAIL,
      recoveryIp: e.RATE_LIMIT_RECOVERY_IP,
      refresh: e.RATE_LIMIT_REFRESH,
      global: e.RATE_LIMIT_GLOBAL
    }
  }
}

// The test suite's database choice, read here so that nothing else touches process.env.
export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? ''
