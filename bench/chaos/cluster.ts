// The deployment the chaos run attacks: a fresh PostgreSQL database with the demo data, two web
// instances (`src/server.ts`, no report workers in them) and one `npm run worker`, each connected to
// PostgreSQL and Redis through the run's own TCP proxies (bench/chaos/proxy.ts). A process can be
// killed with SIGKILL and started again on its port; one that exits on its own is counted and
// started again, so the run goes on and the books say so.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { freshDatabase, type BenchDatabase } from '../lib/database.ts'
import { freePort, startChild, type Child } from '../lib/processes.ts'
import { importOrFail, writeDemoData } from '../lib/seed.ts'
import { NO_LIMIT, serviceEnv, startService, type BenchRun } from '../lib/service.ts'
import { startProxy, type TcpProxy } from './proxy.ts'

export const INGEST_TOKEN = 'chaos-ingest-token-0123456789abcdefghij'
/** a start (tsx compiling the service) on a machine this run and others load can take minutes */
const READY_TIMEOUT_MS = 180_000
/** credits every account starts with: credits spent are this less what is left */
export const FREE_REPORTS = 50

export interface Proc {
  name: string
  /** the base URL; for the worker, its metrics listener */
  url: string
  up: () => boolean
  kill: () => Promise<void>
  start: () => Promise<void>
}

export interface Cluster {
  db: BenchDatabase
  /** the database itself, not through the proxy: the run's checks and pg_terminate_backend */
  sql: postgres.Sql
  pgProxy: TcpProxy
  redisProxy: TcpProxy
  webs: Proc[]
  worker: Proc
  /** processes that exited without being killed by the run (describeExit says what of) */
  unexpectedExits: UnexpectedExit[]
  stop: () => Promise<void>
}

function proxiedUrl (url: string, port: number): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString()
}

/** a process that exited without being killed by the run */
export interface UnexpectedExit { name: string, what: string, at: number, logFile: string }

/**
 * An unexpected exit with the last error its process logged before it (pino, one JSON object a
 * line): what it died of. Read when the books are written, once the log is flushed.
 */
export function describeExit (exit: UnexpectedExit): string {
  const head = `${exit.name} ${exit.what} at ${new Date(exit.at).toISOString()}`
  let lines: string[]
  try { lines = readFileSync(exit.logFile, 'utf8').split('\n') } catch { return `${head}; no log` }
  for (const line of lines.reverse()) {
    if (!line.startsWith('{')) continue
    try {
      const entry = JSON.parse(line) as { level?: number, time?: number, msg?: string, err?: { message?: string, stack?: string } }
      if ((entry.level ?? 0) < 50 || (entry.time ?? 0) > exit.at) continue
      const where = entry.err?.stack?.split('\n').find((l) => l.trim().startsWith('at '))?.trim()
      return `${head}; last error logged: ${[entry.msg, entry.err?.message, where].filter(Boolean).join(': ')}`
    } catch { continue }
  }
  return `${head}; no error logged`
}

function supervised (name: string, logFile: string, launch: () => Promise<Child>, unexpected: UnexpectedExit[]): Proc & { stop: () => Promise<void> } {
  let child: Child | undefined
  let killing = false
  let stopped = false
  let url = ''
  const watch = (c: Child) => {
    c.proc.once('exit', (code, signal) => {
      if (child !== c || killing || stopped) return
      child = undefined
      unexpected.push({ name, what: `exited by itself (${signal ?? `code ${code}`})`, at: Date.now(), logFile })
      // started again so that the run goes on; the books count the exit
      proc.start().catch((err: Error) => unexpected.push({ name, what: `could not start again (${err.message})`, at: Date.now(), logFile }))
    })
  }
  const proc = {
    name,
    get url () { return url },
    up: () => child !== undefined,
    async kill () {
      const c = child
      if (!c) return
      killing = true
      const exited = new Promise((resolve) => c.proc.once('exit', resolve))
      c.proc.kill('SIGKILL')
      await exited
      child = undefined
      killing = false
    },
    async start () {
      if (child || stopped) return
      const c = await launch()
      url = c.url
      child = c
      watch(c)
    },
    async stop () {
      stopped = true
      await child?.stop()
    }
  }
  return proc
}

export async function startCluster (run: BenchRun, opts: { redisUrl: string, adminUrl: string }): Promise<Cluster> {
  const db = await freshDatabase('chaos')
  const sql = postgres(db.url, { max: 4, onnotice: () => {}, connection: { application_name: 'chaos-books' } })
  const stops: Array<() => Promise<void>> = [async () => { await sql.end({ timeout: 5 }) }, db.drop]
  const unexpectedExits: UnexpectedExit[] = []
  try {
    const demo = await writeDemoData(run.dir)
    await importOrFail(db.url, demo.file, join(run.dir, 'data'))
    const pgUrl = new URL(opts.adminUrl)
    const pgProxy = await startProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) })
    const redisUrl = new URL(opts.redisUrl)
    const redisProxy = await startProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) })
    stops.unshift(pgProxy.close, redisProxy.close)
    const env = {
      REDIS_URL: proxiedUrl(opts.redisUrl, redisProxy.port),
      INGEST_TOKEN,
      SIGNUP_FREE_REPORTS: String(FREE_REPORTS),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // retries within the run, so that every delivery has ended when the books are read
      WEBHOOK_RETRY_SCHEDULE: '0,2,5,10,20,40,60,90',
      // a killed worker's report job comes back within the run
      REPORT_JOB_EXPIRE_S: '20',
      QUEUE_MAINTENANCE_S: '5',
      SESSION_RECONCILE_S: '1',
      // accounts are made all the time: the cheapest hashing the service accepts (a test deployment)
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
      // the probes of revoked credentials are 401s from one address, on purpose
      RATE_LIMIT_AUTH_FAILURES_IP: NO_LIMIT,
      LOG_LEVEL: 'warn'
    }
    const databaseUrl = proxiedUrl(db.url, pgProxy.port)
    const webs = await Promise.all(['web-a', 'web-b'].map(async (name) => {
      const port = await freePort()
      return supervised(name, join(run.logDir, `${name}.log`), async () => await startService(run, { name, databaseUrl, workers: 0, port, env, readyTimeoutMs: READY_TIMEOUT_MS }), unexpectedExits)
    }))
    const workerPort = await freePort()
    const worker = supervised('worker', join(run.logDir, 'worker.log'), async () => await startChild({
      name: 'worker',
      script: 'src/cli/worker.ts',
      port: workerPort,
      logDir: run.logDir,
      readyPath: '/metrics',
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: serviceEnv(run, { name: 'worker', databaseUrl, workers: 2, env: { ...env, METRICS_PORT: String(workerPort) } })
    }), unexpectedExits)
    for (const p of [...webs, worker]) stops.unshift(p.stop)
    // one after another: each runs the migrations (under their lock) and pg-boss's set-up
    for (const p of [...webs, worker]) await p.start()
    return {
      db, sql, pgProxy, redisProxy, webs, worker, unexpectedExits,
      async stop () { for (const s of stops.splice(0)) await s().catch(() => {}) }
    }
  } catch (err) {
    for (const s of stops.splice(0)) await s().catch(() => {})
    throw err
  }
}
