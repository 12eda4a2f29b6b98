// The configuration: the process's variables (read here alone) over `.env` (src/config/environment.ts),
// checked against schemas/env.ts and the rules of src/config/, as a typed Config. Every problem
// found is reported at once, a line each, so that an operator fixes them all in one round.
import { join } from 'node:path'
import { EnvSchema, type Env } from '../schemas/env.ts'
import { ConfigError } from './errors.ts'
import { databaseSettings, DatabaseEnvSchema, type DatabaseConfig } from './config/database.ts'
import { signingSecrets, type SigningSecrets } from './config/dev-secrets.ts'
import { withDotEnv, type Source } from './config/environment.ts'
import { parseEnv } from './config/parse-env.ts'
import { productionProblems } from './config/production.ts'
import { publicUrlOf } from './config/public-url.ts'
import { adminEmailsOf } from './config/admin-emails.ts'
import { checkFormats, checkLifetimes, checkStripe, list, metricsPortOf, retrySchedule } from './config/well-formed.ts'

// The compiled build (dist/, which every `:prod` command runs) is the production build: there an
// unset NODE_ENV means production, so that a release step whose environment was lost refuses to run
// (production wants DATABASE_URL) instead of making an embedded database inside the release tree.
// src/ run by tsx keeps development as the default (docs/operations.md, Deploy).
const COMPILED = import.meta.url.endsWith('.js')

/** the process's variables over the working directory's `.env` (src/config/environment.ts) */
export function environment (env: Source = process.env, file = join(process.cwd(), '.env'), compiled = COMPILED): Record<string, string> {
  const merged = withDotEnv(env, file)
  return compiled && merged.NODE_ENV === undefined ? { ...merged, NODE_ENV: 'production' } : merged
}

// The test suite's database choice, read here so that nothing else touches process.env.
export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? ''
/** a PgBouncer in front of TEST_DATABASE_URL's server (.ci/pgbouncer): the service's connections go through it */
export const testPoolerUrl = process.env.TEST_POOLER_URL ?? ''
/** the test suite's events transport: empty for LISTEN/NOTIFY, or a Redis URL the tests' apps and servers use */
export const testEventsUrl = process.env.TEST_EVENTS_URL ?? ''
export type { DatabaseConfig } from './config/database.ts'

export interface Config {
  env: Env['NODE_ENV']
  production: boolean
  host: string
  port: number
  publicUrl: string
  /** PUBLIC_URL is unset (development): publicUrl is the listener's own address, http(s)://localhost:PORT */
  publicUrlFollowsListener: boolean
  dataDir: string
  /** the generated development secrets (DATA_DIR/secrets.json), or null when both are set */
  secretsFile: string | null
  /** a PostgreSQL URL, or empty for the embedded database (DATABASE_URL unset or `embedded`) */
  databaseUrl: string
  /** the database itself behind a pooler (DATABASE_DIRECT_URL), else databaseUrl: LISTEN and migrations connect here */
  databaseDirectUrl: string
  /** PostgreSQL: statements with parameters prepared once per connection (off behind a pooler that cannot keep them) */
  databasePrepare: boolean
  tls: { enabled: boolean, certFile: string, keyFile: string }
  trustProxy: string[]
  allowHttp: boolean
  jwt: { secret: string, previousSecrets: string[], ttl: number }
  /** idleTtl: seconds a session lives unused; absoluteTtl: seconds it lives at most, used or not */
  session: { secret: string, previousSecrets: string[], idleTtl: number, absoluteTtl: number }
  /** MFA_ENCRYPTION_KEY (seals TOTP secrets) and the rotated-out keys that still open them */
  mfa: { encryptionKey: string, previousKeys: string[] }
  /** seconds between reads of the sessions ended since the last one (SESSION_RECONCILE_S) */
  sessionReconcileS: number
  /** days an audit row is kept (AUDIT_RETENTION_DAYS) */
  auditRetentionDays: number
  captcha: { enabled: boolean, verifyUrl: string, secret: string }
  /** logLinks: the outbox log line carries the mailed link (development only: it holds a secret) */
  mail: { smtpUrl: string, from: string, outboxDir: string, logLinks: boolean }
  google: { clientIds: string[], certsUrl: string }
  stripe: { secretKey: string, webhookSecret: string, priceId: string, apiUrl: string }
  redisUrl: string
  /** how instances tell each other of events: empty for PostgreSQL LISTEN/NOTIFY, or a Redis URL (docs/decisions/reports-and-streams.md, Events through a broker) */
  eventsUrl: string
  workers: number
  queue: { jobExpireSeconds: number, maintenanceSeconds: number }
  ingest: { token: string, bodyLimit: number }
  signupFreeReports: number
  demoData: boolean
  logLevel: Env['LOG_LEVEL']
  corsOrigins: string[]
  /** ADMIN_EMAILS, lowercase: these accounts become `admin` once confirmed */
  adminEmails: string[]
  sseHeartbeatS: number
  /** open streams one user may hold on this instance (SSE_MAX_STREAMS_PER_USER) */
  sseMaxStreamsPerUser: number
  /** seconds readiness answers 503 after SIGTERM before the listener closes (SHUTDOWN_READY_DELAY_S) */
  shutdownReadyDelayS: number
  metricsPort: number | null
  /** the metrics listener's address (loopback unless told otherwise) */
  metricsHost: string
  /** outbound requests (profile images) may reach loopback and private addresses: tests only */
  outbound: { allowPrivate: boolean }
  /** seconds since a session's last proof of its owner within which sensitive calls are allowed (STEP_UP_MAX_AGE_S) */
  stepUpMaxAgeS: number
  /**
   * retryScheduleS: seconds after a delivery's creation at which each attempt is due (the first is
   * usually 0); allowPrivate: endpoints may be http and resolve to loopback or private addresses
   * (outside production always; in production with WEBHOOK_ALLOW_PRIVATE)
   */
  webhooks: { retryScheduleS: number[], allowPrivate: boolean }
  /**
   * maxWatches / maxWatchesSubscribed: watches per user without and with an active subscription
   * (WATCH_MAX, WATCH_MAX_SUBSCRIBED); batchProfiles: watched profiles per batch of the alert worker
   * (ALERT_BATCH_PROFILES); digestIntervalH: hours between two digest mails to one user (ALERT_DIGEST_INTERVAL_H)
   */
  alerts: { maxWatches: number, maxWatchesSubscribed: number, batchProfiles: number, digestIntervalH: number }
  argon2: { memoryCost: number, timeCost: number, parallelism: number }
  /** argon2 jobs in libuv's thread pool at once (ARGON2_CONCURRENCY; default UV_THREADPOOL_SIZE - 1) */
  argon2Concurrency: number
  /** libuv's thread pool as the process was started with it (UV_THREADPOOL_SIZE; libuv's own default is 4) */
  threadPoolSize: number
  rateLimits: {
    signinEmail: number, signinIp: number, signupIp: number, recoveryEmail: number, recoveryIp: number,
    refresh: number, global: number, resend: number, authFailuresIp: number, promocodeUser: number,
    /** requests per minute of one API key (RATE_LIMIT_API_KEY) */
    apiKey: number,
    /** keys each limiter counts exactly in process before new keys are counted in its sketch; also the /48s tracked */
    localKeys: number
  }
}

/** one ConfigError naming every problem, a line each */
function refuse (problems: string[]): void {
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `invalid configuration: ${p}`).join('\n'))
}

export function loadConfig (source: Source = environment()): Config {
  const { env: e, problems } = parseEnv(EnvSchema, source)
  const database = databaseSettings(e, problems)
  if (database.production) problems.push(...productionProblems(e))
  checkFormats(e, problems)
  const secrets = signingSecrets(e, database.dataDir, database.production, problems)
  checkLifetimes(e, problems)
  const captchaOn = captchaEnabled(e, database.production, problems)
  const metricsPort = metricsPortOf(e, problems)
  checkStripe(e, problems)
  const adminEmails = adminEmailsOf(e.ADMIN_EMAILS, problems)
  refuse(problems)
  return toConfig(e, { database, secrets, captchaOn, metricsPort, adminEmails })
}

/**
 * The database settings alone (NODE_ENV, DATA_DIR, DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_PREPARE), for the commands
 * that only touch the database: the migration's release step needs no CAPTCHA, mail or signing secrets.
 */
export function loadDatabaseConfig (source: Source = environment()): DatabaseConfig {
  const { env, problems } = parseEnv(DatabaseEnvSchema, source)
  const database = databaseSettings(env, problems)
  refuse(problems)
  return database
}

// Unset CAPTCHA: on wherever a provider is configured (and always in production); a development
// machine without one gets `off`, so that `npm start` on a fresh clone can sign people up.
function captchaEnabled (e: Env, production: boolean, problems: string[]): boolean {
  const on = e.CAPTCHA ? e.CAPTCHA === 'on' : (production || Boolean(e.CAPTCHA_VERIFY_URL))
  // production's own refusal already names a missing provider
  if (on && !e.CAPTCHA_VERIFY_URL && !production) problems.push('CAPTCHA_VERIFY_URL must be set when CAPTCHA is on')
  return on
}

interface Derived {
  database: DatabaseConfig
  secrets: SigningSecrets
  captchaOn: boolean
  metricsPort: number | null
  adminEmails: string[]
}

/** the checked environment, as the service reads it */
function toConfig (e: Env, { database, secrets, captchaOn, metricsPort, adminEmails }: Derived): Config {
  const { dataDir } = database
  return {
    env: e.NODE_ENV,
    production: database.production,
    host: e.HOST,
    port: e.PORT,
    publicUrl: publicUrlOf(e),
    publicUrlFollowsListener: !e.PUBLIC_URL,
    dataDir,
    secretsFile: secrets.generated ? join(dataDir, 'secrets.json') : null,
    databaseUrl: database.databaseUrl,
    databaseDirectUrl: database.databaseDirectUrl,
    databasePrepare: database.databasePrepare,
    tls: { enabled: e.TLS === 'on', certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE },
    trustProxy: list(e.TRUST_PROXY),
    allowHttp: e.ALLOW_HTTP,
    jwt: { secret: secrets.jwt, previousSecrets: list(e.JWT_PREVIOUS_SECRETS), ttl: e.JWT_TTL },
    mfa: { encryptionKey: secrets.mfa, previousKeys: list(e.MFA_PREVIOUS_ENCRYPTION_KEYS) },
    session: { secret: secrets.session, previousSecrets: list(e.SESSION_PREVIOUS_SECRETS), idleTtl: e.SESSION_IDLE_TTL, absoluteTtl: e.SESSION_ABSOLUTE_TTL },
    sessionReconcileS: e.SESSION_RECONCILE_S,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    captcha: { enabled: captchaOn, verifyUrl: e.CAPTCHA_VERIFY_URL, secret: e.CAPTCHA_SECRET },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: join(dataDir, 'outbox'), logLinks: e.NODE_ENV === 'development' },
    google: { clientIds: list(e.GOOGLE_CLIENT_IDS), certsUrl: e.GOOGLE_CERTS_URL },
    stripe: { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, priceId: e.STRIPE_PRICE_ID, apiUrl: e.STRIPE_API_URL },
    redisUrl: e.REDIS_URL,
    eventsUrl: e.EVENTS_URL,
    workers: e.WORKERS,
    queue: { jobExpireSeconds: e.REPORT_JOB_EXPIRE_S, maintenanceSeconds: e.QUEUE_MAINTENANCE_S },
    ingest: { token: e.INGEST_TOKEN, bodyLimit: e.INGEST_BODY_LIMIT },
    signupFreeReports: e.SIGNUP_FREE_REPORTS,
    demoData: e.DEMO_DATA ? e.DEMO_DATA === 'on' : e.NODE_ENV === 'development',
    logLevel: e.LOG_LEVEL,
    corsOrigins: list(e.CORS_ORIGINS),
    adminEmails,
    sseHeartbeatS: e.SSE_HEARTBEAT_S,
    sseMaxStreamsPerUser: e.SSE_MAX_STREAMS_PER_USER,
    shutdownReadyDelayS: e.SHUTDOWN_READY_DELAY_S,
    metricsPort,
    metricsHost: e.METRICS_HOST,
    outbound: { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE === 'on' },
    stepUpMaxAgeS: e.STEP_UP_MAX_AGE_S,
    webhooks: { retryScheduleS: retrySchedule(e.WEBHOOK_RETRY_SCHEDULE) ?? [], allowPrivate: e.WEBHOOK_ALLOW_PRIVATE || !database.production },
    alerts: { maxWatches: e.WATCH_MAX, maxWatchesSubscribed: e.WATCH_MAX_SUBSCRIBED, batchProfiles: e.ALERT_BATCH_PROFILES, digestIntervalH: e.ALERT_DIGEST_INTERVAL_H },
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
      apiKey: e.RATE_LIMIT_API_KEY,
      resend: e.RATE_LIMIT_RESEND,
      authFailuresIp: e.RATE_LIMIT_AUTH_FAILURES_IP,
      localKeys: e.RATE_LIMIT_LOCAL_KEYS
    }
  }
}
