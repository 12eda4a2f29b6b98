// Report generations as a deployment runs them: a web instance queues them (POST
// /report/{id}/generate: a credit held, a job), one `npm run worker` generates them (load the
// profiles, the engine, the stored report, five events). Counted: generations per CPU-second of the
// worker (what one of its cores gives), the queueing requests' CPU in the web instance, and the
// database's work per generation (bench/lib/cpu.ts). The baseline: the engine alone on the same
// input in this process (computeReport, no I/O), per CPU-second: what a core gives when nothing but
// the computation is left.
import postgres from 'postgres'
import { createDatabase } from '../../src/db/client.ts'
import { computeReport, formatMonth, reportMonth, toMonth } from '../../src/engine/index.ts'
import { loadReportInput } from '../../src/services/reports/loader.ts'
import { inParallel } from './accounts.ts'
import { cpuSeconds, databaseMeter, type DatabaseMeter } from './cpu.ts'
import { freePort, request, startChild, type Child } from './processes.ts'
import { round } from './results.ts'
import type { ScenarioContext } from './scenario.ts'
import { API, type SignedIn } from './seed.ts'
import { serviceEnv } from './service.ts'

/** generations before the measured ones: the worker's code compiled, its pool's connections open */
const WARMUP = 5
/** requests in flight at once when creating and queueing */
const PARALLEL = 8
/** seconds of engine runs for the baseline */
const ENGINE_SECONDS = 3
/** loads of the report's input, for their cost */
const LOADS = 10

export interface GenerationFigures {
  generations: number
  seconds: number
  /** generations a second, one worker with `workers` jobs at once, on this machine */
  perSecond: number
  /** generations per CPU-second of the worker process */
  perCore: number
  workerCpuMs: number
  /** the queueing request's CPU in the web instance, per generation */
  webCpuMs: number
  database: { backendCpuMs: number, backgroundCpuMs: number, writes: number, perBackendCore: number, othersActive: number }
  failed: number
  workers: number
  /** one stored report: its body's bytes, its details' bytes as JSON text and as stored (jsonb, compressed) */
  stored: { bodyBytes: number, detailsBytes: number, detailsStoredBytes: number }
}

export interface EngineFigures {
  runs: number
  cpuSeconds: number
  perCore: number
  msPerRun: number
  /** one loadReportInput: this process's CPU, the database's backends' (ms) */
  load: { cpuMs: number, databaseCpuMs: number }
}

const cpuOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6

async function drafts (app: Child, user: SignedIn, profiles: Array<{ source: string, username: string }>, n: number): Promise<string[]> {
  const ids: string[] = []
  await inParallel(n, async () => {
    const res = await request(`${app.url}${API}/report`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: JSON.stringify({ profiles }) })
    if (res.status !== 201) throw new Error(`report creation failed: ${res.status} ${res.body}`)
    ids.push((JSON.parse(res.body) as { id: string }).id)
  }, PARALLEL)
  return ids
}

/** queue them all, then wait until each is ready or failed (read from the database, on the meter's connection) */
async function generate (app: Child, user: SignedIn, sql: postgres.Sql, ids: string[]): Promise<number> {
  await inParallel(ids.length, async (i) => {
    const res = await request(`${app.url}${API}/report/${ids[i]}/generate`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` } })
    if (res.status !== 202) throw new Error(`generate failed: ${res.status} ${res.body}`)
  }, PARALLEL)
  const until = Date.now() + 300_000
  for (;;) {
    const [row] = await sql<Array<{ done: number, failed: number }>>`
      select count(*) filter (where status in ('ready', 'failed'))::int as done, count(*) filter (where status = 'failed')::int as failed
      from reports where id in ${sql(ids)}`
    if (row.done === ids.length) return row.failed
    if (Date.now() > until) throw new Error(`${ids.length - row.done} of ${ids.length} generations unfinished after 300 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** `count` generations of a report on `profiles` through a worker beside `app`, each user's credits permitting */
export async function generationRate (ctx: ScenarioContext, opts: { app: Child, user: SignedIn, databaseUrl: string, database: string, profiles: Array<{ source: string, username: string }>, count: number, workers: number }): Promise<GenerationFigures> {
  const port = await freePort()
  const worker = await startChild({
    name: 'worker',
    script: 'src/cli/worker.ts',
    port,
    logDir: ctx.run.logDir,
    readyPath: '/metrics',
    env: serviceEnv(ctx.run, { name: 'worker', databaseUrl: opts.databaseUrl, workers: opts.workers, env: { METRICS_PORT: String(port) } })
  })
  ctx.defer(worker.stop)
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {} })
  ctx.defer(async () => { await sql.end({ timeout: 5 }) })
  const meter = databaseMeter(sql, opts.database)
  const ids = await drafts(opts.app, opts.user, opts.profiles, WARMUP + opts.count)
  if (await generate(opts.app, opts.user, sql, ids.slice(0, WARMUP)) > 0) throw new Error('a warm-up generation failed; see the worker\'s log')

  const measured = ids.slice(WARMUP)
  const stop = await meter.start()
  const worker0 = cpuSeconds(worker.proc.pid)
  const web0 = cpuSeconds(opts.app.proc.pid)
  const t0 = performance.now()
  const failed = await generate(opts.app, opts.user, sql, measured)
  const seconds = (performance.now() - t0) / 1000
  const workerCpu = cpuSeconds(worker.proc.pid) - worker0
  const webCpu = cpuSeconds(opts.app.proc.pid) - web0
  const work = await stop()
  const n = measured.length
  const [stored] = await sql<Array<{ bodyBytes: number, detailsBytes: number, detailsStoredBytes: number }>>`
    select octet_length(body) as "bodyBytes", octet_length(details::text) as "detailsBytes", pg_column_size(details) as "detailsStoredBytes"
    from reports where id = ${measured[0]}`
  return {
    generations: n,
    seconds: round(seconds, 2),
    perSecond: round(n / seconds, 1),
    perCore: round(n / workerCpu, 1),
    workerCpuMs: round(workerCpu * 1000 / n, 2),
    webCpuMs: round(webCpu * 1000 / n, 2),
    database: {
      backendCpuMs: round(work.backendCpu * 1000 / n, 3),
      backgroundCpuMs: round(work.backgroundCpu * 1000 / n, 3),
      writes: round(work.writes / n, 2),
      perBackendCore: round(n / work.backendCpu, 1),
      othersActive: work.othersActive
    },
    failed,
    workers: opts.workers,
    stored
  }
}

/**
 * the engine alone on the input of the report on `profiles`, as the worker loads it, runs per
 * CPU-second of this process; and the load itself (loadReportInput), for where the rest goes: this
 * process's CPU and the database's per load
 */
export async function engineRate (databaseUrl: string, profileIds: string[], meter: DatabaseMeter): Promise<EngineFigures> {
  const database = await createDatabase({ url: databaseUrl, max: 2 })
  try {
    const at = new Date()
    const load = () => loadReportInput(database, profileIds, formatMonth(toMonth(at)))
    const loaded = await load()
    const c0 = process.cpuUsage()
    const stop = await meter.start()
    for (let i = 0; i < LOADS; i++) await load()
    const work = await stop()
    const loadCpu = cpuOf(process.cpuUsage(c0))
    const input = { ...loaded, month: formatMonth(reportMonth(at, loaded.profiles.map((p) => p.profile))) }
    for (let i = 0; i < WARMUP; i++) computeReport(input)
    const c1 = process.cpuUsage()
    const until = performance.now() + ENGINE_SECONDS * 1000
    let runs = 0
    while (performance.now() < until) {
      computeReport(input)
      runs++
    }
    const cpu = cpuOf(process.cpuUsage(c1))
    return {
      runs,
      cpuSeconds: round(cpu, 2),
      perCore: round(runs / cpu, 1),
      msPerRun: round(cpu * 1000 / runs, 2),
      load: { cpuMs: round(loadCpu * 1000 / LOADS, 2), databaseCpuMs: round(work.backendCpu * 1000 / LOADS, 2) }
    }
  } finally {
    await database.close()
  }
}
