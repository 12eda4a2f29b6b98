// Several instances on one database and one events transport, each holding the streams of reports
// of its own, and a publisher writing those reports' events through the service's path (a
// report_events row appended in a transaction, announced after the commit: NOTIFY, or the report's
// Redis channel with EVENTS_URL; src/services/reports/events.ts), at a set rate, spread evenly over
// the reports. A window counts each event on each stream of its report (bench/clients/sse-client.ts,
// track), the publish-to-receive latency, and each instance's CPU per event it delivered
// (bench/lib/cpu.ts). A report's streams are on one instance, as a person's dashboard is: with
// NOTIFY every instance still hears every announcement and drops what it holds no stream of; with
// the broker only the holder hears it (docs/decisions/reports-and-streams.md, Events through a broker).
// The instances are the service (`src/server.ts`, WORKERS=0) or, for a baseline, the raw SSE server
// fed by the same transport (bench/servers/raw-sse.ts).
import { Redis } from 'ioredis'
import { createDatabase, type Database, type Db } from '../../src/db/client.ts'
import { createEventPublisher } from '../../src/services/events/index.ts'
import { announce, appendEvent } from '../../src/services/reports/events.ts'
import { cpuSeconds, type DatabaseMeter, type DatabaseWork } from './cpu.ts'
import { startChild, type Child } from './processes.ts'
import { percentile, round } from './results.ts'
import type { ScenarioContext } from './scenario.ts'
import { API, type SignedIn } from './seed.ts'
import { startService } from './service.ts'
import type { Opened, SseClient } from './streams.ts'

export type TransportName = 'notify' | 'redis'

const now = () => Number(process.hrtime.bigint()) / 1e6
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** streams opened at once on an instance: each open reads the report's backlog on a pool connection, and eight instances' pools share max_connections */
const OPEN_CONCURRENCY = 2

export interface FleetOptions {
  kind: 'service' | 'raw'
  transport: TransportName
  databaseUrl: string
  redisUrl: string
  /** owns every report */
  user: SignedIn
  /** report ids, reportsPerInstance of them per instance in order */
  reports: string[]
  reportsPerInstance: number
  streamsPerReport: number
  /** more of the service's environment (a pooler's URLs) */
  env?: Record<string, string>
}

export interface Instance { child: Child, reports: string[] }

export interface Fleet {
  instances: Instance[]
  /** start instances (and open their streams) until there are n */
  grow: (n: number) => Promise<void>
  stop: () => Promise<void>
}

export function createFleet (ctx: ScenarioContext, client: SseClient, opts: FleetOptions): Fleet {
  const instances: Instance[] = []
  const name = (i: number) => `${opts.kind}-${opts.transport}-${i + 1}`
  async function start (i: number): Promise<Instance> {
    const child = opts.kind === 'service'
      ? await startService(ctx.run, {
        name: name(i),
        databaseUrl: opts.databaseUrl,
        env: { EVENTS_URL: opts.transport === 'redis' ? opts.redisUrl : '', SSE_MAX_STREAMS_PER_USER: '100000', ...opts.env },
        // instances started together on two busy cores
        readyTimeoutMs: 180_000
      })
      : await startChild({
        name: name(i),
        script: 'bench/servers/raw-sse.ts',
        logDir: ctx.run.logDir,
        readyPath: '/health',
        env: { BENCH_EVENTS: opts.transport, BENCH_EVENTS_URL: opts.transport === 'redis' ? opts.redisUrl : opts.databaseUrl }
      })
    ctx.defer(child.stop)
    const reports = opts.reports.slice(i * opts.reportsPerInstance, (i + 1) * opts.reportsPerInstance)
    if (reports.length < opts.reportsPerInstance) throw new Error(`${opts.reports.length} reports are too few for ${i + 1} instances`)
    for (const reportId of reports) {
      const url = opts.kind === 'service' ? `${child.url}${API}/sse/${reportId}` : `${child.url}/sse/${reportId}`
      const opened = await client.ask<Opened>({ type: 'open', url, headers: { authorization: `Bearer ${opts.user.token}` }, count: opts.streamsPerReport, concurrency: OPEN_CONCURRENCY, tag: `${i}|${reportId}` })
      if (opened.failed) throw new Error(`${name(i)}: ${opened.failed} streams of report ${reportId} failed to open: ${JSON.stringify(opened.statuses)}`)
    }
    return { child, reports }
  }
  return {
    instances,
    async grow (n) {
      // the first alone (migrations, if any, run once), the rest together
      if (instances.length === 0 && n > 0) instances.push(await start(0))
      const more = await Promise.all(Array.from({ length: Math.max(0, n - instances.length) }, (_, k) => start(instances.length + k)))
      instances.push(...more)
    },
    async stop () {
      await client.ask({ type: 'close' })
      for (const i of instances.splice(0)) await i.child.stop()
    }
  }
}

export interface Publisher {
  /** append an event to the report and announce it; resolves once announced. Events of one report are appended one after another. */
  publish: (reportId: string) => Promise<{ seq: number, t0: number }>
  close: () => Promise<void>
}

export async function createPublisher (opts: { databaseUrl: string, transport: TransportName, redisUrl: string, connections: number }): Promise<Publisher> {
  const database: Database = await createDatabase({ url: opts.databaseUrl, max: opts.connections })
  const events = createEventPublisher({ url: opts.transport === 'redis' ? opts.redisUrl : '', database })
  const chains = new Map<string, Promise<unknown>>()
  return {
    publish (reportId) {
      const next = (chains.get(reportId) ?? Promise.resolve()).then(async () => {
        const t0 = now()
        const seq = await database.db.transaction(async (tx) => await appendEvent(tx as unknown as Db, reportId, 'status', { reportId, status: 'draft', progress: 0, stage: null }))
        await announce(events, reportId, [seq])
        return { seq, t0 }
      })
      chains.set(reportId, next.catch(() => {}))
      return next
    },
    async close () {
      await events.close()
      await database.close()
    }
  }
}

/** the pid of the Redis server at url when it runs on this machine (its CPU is then read too) */
export async function localRedisPid (url: string): Promise<number | undefined> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1])
    return ['127.0.0.1', 'localhost', '::1'].includes(new URL(url).hostname) && cpuSeconds(pid) > 0 ? pid : undefined
  } catch {
    return undefined
  } finally {
    redis.disconnect()
  }
}

export interface WindowFigures {
  /** events a second asked for, and published (the publisher may fall behind) */
  rate: number
  publishedRate: number
  events: number
  /** deliveries expected (each event on each stream of its report), received, and received twice */
  expected: number
  delivered: number
  duplicates: number
  deliveredAll: boolean
  p50: number
  p99: number
  max: number
  /** per instance: events of its reports, its CPU per event (ms) */
  instances: Array<{ events: number, cpuMs: number, cpuMsPerEvent: number }>
  /** per event published: the database's backends' CPU and the server's background CPU (ms); the Redis server's (ms), when local */
  database?: { backendCpuMsPerEvent: number, backgroundCpuMsPerEvent: number, connections: number }
  redisCpuMsPerEvent?: number
}

/**
 * `rate` events a second for `seconds` over the reports of every instance (or of `only` those), then
 * until all are in (or 10 s)
 */
export async function runWindow (client: SseClient, fleet: Fleet, publisher: Publisher, opts: { rate: number, seconds: number, streamsPerReport: number, meter?: DatabaseMeter, redisPid?: number, only?: Instance[] }): Promise<WindowFigures> {
  const reports = (opts.only ?? fleet.instances).flatMap((i) => i.reports)
  const streams = fleet.instances.reduce((a, i) => a + i.reports.length, 0) * opts.streamsPerReport
  const total = Math.max(1, Math.round(opts.rate * opts.seconds))
  await client.ask({ type: 'track' })
  const stopMeter = await opts.meter?.start()
  const cpu0 = fleet.instances.map((i) => cpuSeconds(i.child.proc.pid))
  const redis0 = cpuSeconds(opts.redisPid)
  const published = new Map<string, Map<number, number>>(reports.map((r) => [r, new Map()]))
  const pending: Array<Promise<void>> = []
  const start = now()
  for (let k = 0; k < total;) {
    const due = Math.min(total, Math.floor((now() - start) * opts.rate / 1000) + 1)
    for (; k < due; k++) {
      const reportId = reports[k % reports.length]
      pending.push(publisher.publish(reportId).then(({ seq, t0 }) => { published.get(reportId)!.set(seq, t0) }))
    }
    if (k < total) await sleep(Math.max(1, Math.min(20, k * 1000 / opts.rate - (now() - start))))
  }
  await Promise.all(pending)
  const publishedSeconds = (now() - start) / 1000
  const got = await client.ask<{ type: string, streams: Array<{ tag: string, ids: number[], at: number[] }> }>({ type: 'tracked', expect: total * opts.streamsPerReport, timeoutMs: 10_000 })
  const cpu = fleet.instances.map((i, n) => cpuSeconds(i.child.proc.pid) - cpu0[n])
  const redisCpu = cpuSeconds(opts.redisPid) - redis0
  const work: DatabaseWork | undefined = await stopMeter?.()

  const latencies: number[] = []
  let delivered = 0
  let duplicates = 0
  for (const s of got.streams) {
    const reportId = s.tag.slice(s.tag.indexOf('|') + 1)
    const sent = published.get(reportId)
    if (!sent) continue
    const seen = new Set<number>()
    s.ids.forEach((id, j) => {
      const t0 = sent.get(id)
      if (t0 === undefined) return
      if (seen.has(id)) { duplicates++; return }
      seen.add(id)
      delivered++
      latencies.push(s.at[j] - t0)
    })
  }
  latencies.sort((a, b) => a - b)
  const expected = total * opts.streamsPerReport
  return {
    rate: opts.rate,
    publishedRate: round(total / publishedSeconds, 1),
    events: total,
    expected,
    delivered,
    duplicates,
    deliveredAll: delivered === expected && duplicates === 0 && got.streams.length === streams,
    p50: round(percentile(latencies, 50), 1),
    p99: round(percentile(latencies, 99), 1),
    max: round(latencies[latencies.length - 1] ?? NaN, 1),
    instances: fleet.instances.map((i, n) => {
      const events = i.reports.reduce((a, r) => a + (published.get(r)?.size ?? 0), 0)
      return { events, cpuMs: round(cpu[n] * 1000, 2), cpuMsPerEvent: round(cpu[n] * 1000 / Math.max(1, events), 3) }
    }),
    ...(work ? { database: { backendCpuMsPerEvent: round(work.backendCpu * 1000 / total, 3), backgroundCpuMsPerEvent: round(work.backgroundCpu * 1000 / total, 3), connections: work.connections } } : {}),
    ...(opts.redisPid ? { redisCpuMsPerEvent: round(redisCpu * 1000 / total, 3) } : {})
  }
}

/** each instance's CPU (ms) and the database's work over `seconds` with no event */
export async function idleWindow (fleet: Fleet, seconds: number, meter?: DatabaseMeter): Promise<{ cpuMs: number[], database?: DatabaseWork }> {
  const stop = await meter?.start()
  const cpu0 = fleet.instances.map((i) => cpuSeconds(i.child.proc.pid))
  await sleep(seconds * 1000)
  const cpuMs = fleet.instances.map((i, n) => round((cpuSeconds(i.child.proc.pid) - cpu0[n]) * 1000, 2))
  return { cpuMs, database: await stop?.() }
}

export function windowLine (w: WindowFigures): string {
  const cpu = w.instances.map((i) => i.cpuMsPerEvent.toFixed(3)).join(' ')
  return `${w.rate}/s asked, ${w.publishedRate}/s published; delivered ${w.delivered}/${w.expected}${w.duplicates ? ` (${w.duplicates} twice)` : ''}; ` +
    `p50 ${w.p50} ms p99 ${w.p99} ms max ${w.max} ms; CPU ms per event by instance ${cpu}` +
    (w.database ? `; database backends ${w.database.backendCpuMsPerEvent} ms per event` : '') +
    (w.redisCpuMsPerEvent !== undefined ? `; Redis ${w.redisCpuMsPerEvent} ms` : '')
}

export interface RampFigures {
  /** the highest rate whose window passed: every event on every stream, p99 within the limit, the publisher keeping up */
  ceiling: number
  /** why the next rate failed ('' when none did) */
  limit: string
  steps: WindowFigures[]
}

/** windows at each rate in turn, until one fails; first a second at the lowest, not counted (the paths compiled, the pools open) */
export async function ramp (client: SseClient, fleet: Fleet, publisher: Publisher, opts: { rates: number[], seconds: number, streamsPerReport: number, p99Ms: number, meter?: DatabaseMeter, redisPid?: number }): Promise<RampFigures> {
  await runWindow(client, fleet, publisher, { rate: opts.rates[0], seconds: 1, streamsPerReport: opts.streamsPerReport })
  const steps: WindowFigures[] = []
  let ceiling = 0
  let limit = ''
  for (const rate of opts.rates) {
    const w = await runWindow(client, fleet, publisher, { rate, seconds: opts.seconds, streamsPerReport: opts.streamsPerReport, meter: opts.meter, redisPid: opts.redisPid })
    steps.push(w)
    console.log(`      ${windowLine(w)}`)
    const why = [
      !w.deliveredAll && `${w.expected - w.delivered} deliveries missing${w.duplicates ? `, ${w.duplicates} twice` : ''}`,
      w.p99 > opts.p99Ms && `p99 ${w.p99} ms over ${opts.p99Ms}`,
      w.publishedRate < 0.95 * rate && `the publisher made ${w.publishedRate}/s`
    ].filter(Boolean).join('; ')
    if (why) { limit = `${rate}/s: ${why}`; break }
    ceiling = rate
    await sleep(500)
  }
  return { ceiling, limit, steps }
}
