// The service under test: `src/server.ts` as its own process, configured only through its
// environment (DESIGN 2). Rate limits are raised here, by configuration, not by any code path.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { settings } from './settings.ts'
import { ROOT, startChild, type Child } from './processes.ts'

// the largest value schemas/env.ts accepts
export const NO_LIMIT = String(2 ** 31 - 1)

export const RAISED_RATE_LIMITS = {
  RATE_LIMIT_SIGNIN_EMAIL: NO_LIMIT,
  RATE_LIMIT_SIGNIN_IP: NO_LIMIT,
  RATE_LIMIT_SIGNUP_IP: NO_LIMIT,
  RATE_LIMIT_RECOVERY_EMAIL: NO_LIMIT,
  RATE_LIMIT_RECOVERY_IP: NO_LIMIT,
  RATE_LIMIT_REFRESH: NO_LIMIT,
  RATE_LIMIT_GLOBAL: NO_LIMIT,
  RATE_LIMIT_API_KEY: NO_LIMIT
}

export interface BenchRun {
  /** scratch directory of this run: data dirs, logs, generated files */
  dir: string
  logDir: string
  /** one pair of secrets per run, so a token from one instance verifies on another */
  jwtSecret: string
  sessionSecret: string
}

export function newSecrets () {
  return { jwtSecret: randomBytes(32).toString('base64url'), sessionSecret: randomBytes(32).toString('base64url') }
}

function startScriptWords (): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  return pkg.scripts.start.trim().split(/\s+/)
}

/**
 * The environment `npm start` sets before Node starts (`NAME=${NAME:-default}` words before `exec`),
 * as that shell would: this process's value when it has one, else the script's default.
 */
export function startScriptEnv (): Record<string, string> {
  const env: Record<string, string> = {}
  for (const word of startScriptWords()) {
    const m = /^(\w+)=\$\{\1:-([^}]*)\}$/.exec(word)
    if (!m) break
    env[m[1]] = process.env[m[1]] || m[2]
  }
  return env
}

/**
 * The V8 flags `npm start` gives the service (package.json), so that the benchmark measures the
 * process an operator runs: the tokens of the start script from `node` to the script, less the
 * `--import tsx` that every child gets anyway.
 */
export function startScriptFlags (): string[] {
  const words = startScriptWords()
  const flags: string[] = []
  for (let i = words.indexOf('node') + 1; i < words.length && words[i].startsWith('-'); i++) {
    if (words[i] === '--import') i++
    else flags.push(words[i])
  }
  return flags
}

export interface ServiceOptions {
  name: string
  databaseUrl: string
  tls?: boolean
  workers?: number
  env?: Record<string, string>
  nofile?: number
  nodeFlags?: string[]
  wrapper?: string[]
  readyTimeoutMs?: number
  /**
   * 'raised' (the default): every rate limit at NO_LIMIT, for set-up and for scenarios that measure
   * something else; 'defaults': the service's own defaults, only what `env` names raised.
   */
  limits?: 'raised' | 'defaults'
}

export async function startService (run: BenchRun, opts: ServiceOptions & { port?: number }): Promise<Child> {
  return await startChild({
    name: opts.name,
    script: 'src/server.ts',
    https: opts.tls === true,
    port: opts.port,
    logDir: run.logDir,
    nofile: opts.nofile,
    nodeFlags: [...startScriptFlags(), ...(opts.nodeFlags ?? [])],
    wrapper: opts.wrapper,
    readyTimeoutMs: opts.readyTimeoutMs,
    env: serviceEnv(run, opts)
  })
}

/** the environment of a process of the service (a server, or `npm run worker` beside it) in this run */
export function serviceEnv (run: BenchRun, opts: ServiceOptions): Record<string, string> {
  const tls = opts.tls === true
  return {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    DATABASE_URL: opts.databaseUrl,
    // one data dir per run: the development certificate (TLS=on) and the mail outbox live there
    DATA_DIR: join(run.dir, 'data'),
    TLS: tls ? 'on' : 'off',
    ALLOW_HTTP: tls ? 'false' : 'true',
    TLS_CERT_FILE: '',
    TLS_KEY_FILE: '',
    TRUST_PROXY: '',
    JWT_SECRET: run.jwtSecret,
    JWT_PREVIOUS_SECRETS: '',
    SESSION_SECRET: run.sessionSecret,
    MFA_ENCRYPTION_KEY: run.sessionSecret + 'mfa',
    CAPTCHA: 'off',
    CAPTCHA_VERIFY_URL: '',
    SMTP_URL: '',
    REDIS_URL: '',
    STRIPE_SECRET_KEY: '',
    STRIPE_WEBHOOK_SECRET: '',
    STRIPE_PRICE_ID: '',
    INGEST_TOKEN: '',
    DEMO_DATA: 'off',
    METRICS_PORT: '',
    CORS_ORIGINS: '',
    WORKERS: String(opts.workers ?? 0),
    LOG_LEVEL: settings.logLevel,
    // no balancer to drain from: SIGTERM at the end of a run closes at once
    SHUTDOWN_READY_DELAY_S: '0',
    ...startScriptEnv(),
    ...(opts.limits === 'defaults' ? {} : RAISED_RATE_LIMITS),
    ...opts.env
  }
}
