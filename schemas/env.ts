// The environment, as the service reads it. Every variable is documented in .env.example.
import { Type, type Static } from '@sinclair/typebox'

const OnOff = (def?: 'on' | 'off') => Type.Union([Type.Literal('on'), Type.Literal('off')], def ? { default: def } : {})
const Int = (def: number, min = 0, max = 2 ** 31 - 1) => Type.Integer({ default: def, minimum: min, maximum: max })

export const EnvSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Int(8443, 0, 65535),
  PUBLIC_URL: Type.String({ default: '', pattern: '^(https?://[^/]+.*)?$' }),
  DATA_DIR: Type.String({ default: './.data' }),
  DATABASE_URL: Type.String({ default: '' }),
  DATABASE_DIRECT_URL: Type.String({ default: '' }),
  DATABASE_PREPARE: OnOff('on'),
  TLS: OnOff('on'),
  TLS_CERT_FILE: Type.String({ default: '' }),
  TLS_KEY_FILE: Type.String({ default: '' }),
  TRUST_PROXY: Type.String({ default: '' }),
  ALLOW_HTTP: Type.Boolean({ default: false }),
  JWT_SECRET: Type.String({ default: '' }),
  JWT_PREVIOUS_SECRETS: Type.String({ default: '' }),
  JWT_TTL: Int(86400, 60),
  SESSION_SECRET: Type.String({ default: '' }),
  MFA_ENCRYPTION_KEY: Type.String({ default: '' }),
  MFA_PREVIOUS_ENCRYPTION_KEYS: Type.String({ default: '' }),
  SESSION_PREVIOUS_SECRETS: Type.String({ default: '' }),
  SESSION_IDLE_TTL: Int(604800, 60),
  SESSION_ABSOLUTE_TTL: Int(2592000, 60),
  SESSION_RECONCILE_S: Int(5, 1, 3600),
  // days an audit row is kept; at least 30 (drizzle/0011's audit_prune keeps that much whatever it is asked)
  AUDIT_RETENTION_DAYS: Int(365, 30, 36500),
  CAPTCHA_VERIFY_URL: Type.String({ default: '' }),
  CAPTCHA_SECRET: Type.String({ default: '' }),
  CAPTCHA: Type.Optional(OnOff()),
  SMTP_URL: Type.String({ default: '' }),
  MAIL_FROM: Type.String({ default: 'Profile Interest Reports <no-reply@localhost>' }),
  GOOGLE_CLIENT_IDS: Type.String({ default: '' }),
  GOOGLE_CERTS_URL: Type.String({ default: '' }),
  STRIPE_SECRET_KEY: Type.String({ default: '' }),
  STRIPE_WEBHOOK_SECRET: Type.String({ default: '' }),
  STRIPE_PRICE_ID: Type.String({ default: '' }),
  STRIPE_API_URL: Type.String({ default: '' }),
  REDIS_URL: Type.String({ default: '' }),
  EVENTS_URL: Type.String({ default: '' }),
  WORKERS: Int(1, 0, 64),
  REPORT_JOB_EXPIRE_S: Int(120, 1, 86400),
  QUEUE_MAINTENANCE_S: Int(30, 1, 3600),
  INGEST_TOKEN: Type.String({ default: '' }),
  INGEST_BODY_LIMIT: Int(256 * 1024 * 1024, 1024),
  SIGNUP_FREE_REPORTS: Int(1, 0, 1000),
  DEMO_DATA: Type.Optional(OnOff()),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
  CORS_ORIGINS: Type.String({ default: '' }),
  // addresses that become `admin` once confirmed (comma list): the first admin of a new deployment
  ADMIN_EMAILS: Type.String({ default: '' }),
  SSE_HEARTBEAT_S: Int(15, 1, 3600),
  SSE_MAX_STREAMS_PER_USER: Int(20, 1, 100000),
  SHUTDOWN_READY_DELAY_S: Int(5, 0, 300),
  METRICS_PORT: Type.String({ default: '' }),
  METRICS_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  OUTBOUND_ALLOW_PRIVATE: OnOff('off'),
  // seconds since a session last proved its owner within which a sensitive call is allowed
  STEP_UP_MAX_AGE_S: Int(600, 10, 86400),
  // seconds after a webhook delivery's creation at which each attempt is due, comma-separated
  WEBHOOK_RETRY_SCHEDULE: Type.String({ default: '0,5,300,1800,7200,18000,36000,36000' }),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  // watches one user may hold, without and with an active subscription (402 past them)
  WATCH_MAX: Int(5, 0, 100000),
  WATCH_MAX_SUBSCRIBED: Int(100, 0, 100000),
  // watched profiles the alert worker computes in one batch
  ALERT_BATCH_PROFILES: Int(500, 1, 100000),
  // hours between two digest mails to one user (at most one a day by default)
  ALERT_DIGEST_INTERVAL_H: Int(24, 1, 8760),
  ARGON2_MEMORY_KIB: Int(19456, 1024),
  ARGON2_TIME_COST: Int(2, 1, 100),
  ARGON2_PARALLELISM: Int(1, 1, 16),
  // 0: one less than UV_THREADPOOL_SIZE (at least 1)
  ARGON2_CONCURRENCY: Int(0, 0, 1024),
  // read by libuv itself, once, before the service's first line runs; read here too, to size
  // ARGON2_CONCURRENCY. 4 is libuv's own default; `npm start`, `start:prod` and the image set 5, so
  // that four hashes run at once and one thread stays free (docs/benchmarks.md, Sign-in under a flood)
  UV_THREADPOOL_SIZE: Int(4, 1, 1024),
  RATE_LIMIT_SIGNIN_EMAIL: Int(10, 1),
  RATE_LIMIT_SIGNIN_IP: Int(30, 1),
  RATE_LIMIT_SIGNUP_IP: Int(10, 1),
  RATE_LIMIT_RECOVERY_EMAIL: Int(5, 1),
  RATE_LIMIT_RECOVERY_IP: Int(20, 1),
  RATE_LIMIT_REFRESH: Int(60, 1),
  RATE_LIMIT_PROMOCODE_USER: Int(10, 1),
  RATE_LIMIT_GLOBAL: Int(6000, 1),
  RATE_LIMIT_API_KEY: Int(6000, 1),
  RATE_LIMIT_RESEND: Int(3, 1),
  RATE_LIMIT_AUTH_FAILURES_IP: Int(60, 1),
  RATE_LIMIT_LOCAL_KEYS: Int(100_000, 1000, 10_000_000)
})

export type Env = Static<typeof EnvSchema>
