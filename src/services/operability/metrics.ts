// Prometheus metrics (prom-client) on a registry of this app's own, so that several apps in one
// process (tests) never share series. Counters and histograms are fed as things happen; gauges read
// their sources at scrape time (collect callbacks), so a scrape shows the state of that moment.
// Sources that ask the database are bounded by a timeout and, when it does not answer, leave their
// series out or NaN (pir_db_up says why) rather than failing the scrape or reporting stale numbers.
import { performance } from 'node:perf_hooks'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Database } from '../../db/client.ts'
import { registerWorkMetrics, type ReconcileSource } from './work-metrics.ts'
import type { TransportState } from '../events/transport.ts'

/** what the metrics need of the queue: pg-boss's getQueueSize */
export interface QueueSizes {
  getQueueSize: (name: string, options?: { before: 'active' | 'completed' }) => Promise<number>
}

/** what the metrics read of the rate-limit stores (src/services/limits/store.ts) */
export interface RateLimitSource {
  degraded: () => boolean
  outages: () => number
  overflowed: () => number
  /** times an IPv6 /48 was found flooding and counted as one client (src/services/limits/client-address.ts) */
  prefixFloods: () => number
  /** IPv6 addresses counted by their /48 because the /48s tracked were at their cap */
  prefixUntracked: () => number
}

export type JobOutcome = 'completed' | 'failed'

interface DbProbe { up: boolean, seconds: number, connections: Record<string, number> }

const SOURCE_TIMEOUT_MS = 2000

async function runProbe (db: Database): Promise<DbProbe> {
  const start = performance.now()
  try {
    await withTimeout(db.query('select 1'))
    const seconds = (performance.now() - start) / 1000
    const connections: Record<string, number> = {}
    if (db.kind === 'postgres') {
      try {
        const rows = await withTimeout(db.query<{ state: string, n: number }>(
          "select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity where datname = current_database() group by 1"))
        for (const r of rows) connections[r.state] = Number(r.n)
      } catch {
        // the database answered the ping; only this statistic is missing from the scrape
      }
    }
    return { up: true, seconds, connections }
  } catch {
    return { up: false, seconds: 0, connections: {} }
  }
}

function withTimeout<T> (work: Promise<T>, ms = SOURCE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('metrics source timed out')), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

// What only a web instance does: serve requests and streams, count limits, verify passwords, check
// tokens against its set of ended sessions. A worker process leaves these series out of its
// exposition: an unlabelled gauge or counter would otherwise show a zero it never measured.
const WEB_ONLY = [
  'pir_http_requests_total', 'pir_http_request_duration_seconds', 'pir_sse_open_streams', 'pir_sse_streamed_reports',
  'pir_rate_limit_redis_down', 'pir_rate_limit_redis_outages_total', 'pir_rate_limit_overflow_total',
  'pir_rate_limit_ipv6_floods_total', 'pir_rate_limit_ipv6_untracked_total', 'pir_argon2_verifications_total',
  'pir_session_reconcile_runs_total', 'pir_session_reconcile_failures_total', 'pir_session_reconcile_in_sync'
]

/** `worker`: the metrics of a worker process (npm run worker), without the web instance's series */
export function createMetrics (opts: { worker?: boolean } = {}) {
  const registry = new Registry()
  // process_* and nodejs_* (CPU, resident memory, heap, event-loop lag, GC): the usual names, unprefixed
  collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const requests = new Counter({
    name: 'pir_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers
  })
  const latency = new Histogram({
    name: 'pir_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route pattern and status code (SSE streams not included)',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers
  })
  const jobs = new Histogram({
    name: 'pir_report_job_duration_seconds',
    help: 'Time a worker of this process spent on one report job, by queue and outcome (failed = the attempt threw; pg-boss retries it)',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers
  })

  // Sources, attached once their owners exist (the SSE hub, the queue, the database).
  let sse: { streams: () => number, reports: () => number } | undefined
  let queue: { boss: QueueSizes, names: string[] } | undefined
  let database: Database | undefined
  let limits: RateLimitSource | undefined
  let passwords: { readonly verifications: number } | undefined

  new Gauge({
    name: 'pir_sse_open_streams',
    help: 'Report event streams (GET /sse/{id}) open on this process',
    registers,
    collect () { if (sse) this.set(sse.streams()) }
  })
  new Gauge({
    name: 'pir_sse_streamed_reports',
    help: 'Distinct reports with at least one open stream on this process',
    registers,
    collect () { if (sse) this.set(sse.reports()) }
  })
  new Gauge({
    name: 'pir_queue_jobs',
    help: 'Jobs in the report queues (all instances: the queue lives in the database), by queue and state (waiting = created or retry, active = being worked on)',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect () {
      this.reset()
      if (!queue) return
      const { boss, names } = queue
      try {
        const counts = await withTimeout(Promise.all(names.map(async (name) => {
          const [waiting, unfinished] = await Promise.all([boss.getQueueSize(name), boss.getQueueSize(name, { before: 'completed' })])
          return { name, waiting, active: unfinished - waiting }
        })))
        for (const c of counts) {
          this.set({ queue: c.name, state: 'waiting' }, c.waiting)
          this.set({ queue: c.name, state: 'active' }, c.active)
        }
      } catch {
        // the database does not answer: no queue series in this scrape (pir_db_up is 0)
      }
    }
  })

  new Gauge({
    name: 'pir_rate_limit_redis_down',
    help: '1 while REDIS_URL is set but Redis does not answer: every limit counts in this process alone until it does',
    registers,
    collect () { if (limits) this.set(limits.degraded() ? 1 : 0) }
  })
  new Counter({
    name: 'pir_rate_limit_redis_outages_total',
    help: 'Times Redis stopped answering the rate limits since start (each outage logged once)',
    registers,
    collect () { if (limits) { this.reset(); this.inc(limits.outages()) } }
  })
  new Counter({
    name: 'pir_rate_limit_overflow_total',
    help: 'Requests counted in a limiter\'s fixed-size estimate (count-min sketch) because its exact in-process counters were full (RATE_LIMIT_LOCAL_KEYS)',
    registers,
    collect () { if (limits) { this.reset(); this.inc(limits.overflowed()) } }
  })
  new Counter({
    name: 'pir_rate_limit_ipv6_floods_total',
    help: 'Times an IPv6 /48 used so many /64s in an hour that its addresses were counted as one client by the per-IP limits',
    registers,
    collect () { if (limits) { this.reset(); this.inc(limits.prefixFloods()) } }
  })
  new Counter({
    name: 'pir_rate_limit_ipv6_untracked_total',
    help: 'IPv6 requests counted by their /48 because as many /48s were being tracked as RATE_LIMIT_LOCAL_KEYS allows (a flood of sites)',
    registers,
    collect () { if (limits) { this.reset(); this.inc(limits.prefixUntracked()) } }
  })
  new Counter({
    name: 'pir_argon2_verifications_total',
    help: 'argon2 password verifications run by this process (sign-ins, the dummy hash of unknown addresses included)',
    registers,
    collect () { if (passwords) { this.reset(); this.inc(passwords.verifications) } }
  })

  // postgres.js keeps its pool's state to itself and PGlite is one in-process connection, so the
  // pool is described by what can be measured honestly: its configured size, how long a `select 1`
  // waits and runs (it queues behind every busy connection), and, on PostgreSQL, the server's own
  // count of connections to this database (every instance's, by state).
  new Gauge({
    name: 'pir_db_pool_max_connections',
    help: 'Configured size of this process\'s database pool (PGlite: 1, in process)',
    registers,
    collect () {
      if (database) this.set(database.kind === 'postgres' ? database.sql?.options.max ?? 0 : 1)
    }
  })
  // One probe per scrape, shared by the three series below (their collects start in the same tick).
  let probe: Promise<DbProbe> | undefined
  function probeDatabase (db: Database): Promise<DbProbe> {
    probe ??= runProbe(db).finally(() => { setImmediate(() => { probe = undefined }) })
    return probe
  }
  new Gauge({
    name: 'pir_db_up',
    help: '1 when the database answered this scrape\'s `select 1` within 2 s, else 0',
    registers,
    async collect () {
      if (database) this.set((await probeDatabase(database)).up ? 1 : 0)
    }
  })
  new Gauge({
    name: 'pir_db_ping_seconds',
    help: 'Time of this scrape\'s `select 1` through the pool, waiting for a free connection included (NaN when it failed)',
    registers,
    async collect () {
      const p = database && await probeDatabase(database)
      this.set(p?.up ? p.seconds : NaN)
    }
  })
  new Gauge({
    name: 'pir_db_server_connections',
    help: 'PostgreSQL only: connections to this database as pg_stat_activity sees them (every client, every instance), by state',
    labelNames: ['state'] as const,
    registers,
    async collect () {
      this.reset()
      const p = database && await probeDatabase(database)
      for (const [state, n] of Object.entries(p?.connections ?? {})) this.set({ state }, n)
    }
  })

  // What an operator alerts on: the backlogs, the pool, the reconcile (./work-metrics.ts)
  let reconcile: ReconcileSource | undefined
  registerWorkMetrics(registry, () => ({ database, jobs: queue !== undefined, reconcile }), () => queue?.names ?? [])
  if (opts.worker) for (const name of WEB_ONLY) registry.removeSingleMetric(name)
  // The events transport (src/services/events/): whether the broker connection is up, and how often
  // the subscriptions were made again (each one a catch-up from the database).
  let events: { state: () => TransportState } | undefined
  new Gauge({
    name: 'pir_events_broker_connected',
    help: 'EVENTS_URL set: 1 while this process\'s subscriber connection to the events broker is up (streams catch up from the database when it comes back)',
    // labelled so that it has no series at all without a broker (an unlabelled gauge would read 0)
    labelNames: ['transport'] as const,
    registers,
    collect () {
      const s = events?.state()
      if (s?.connected !== undefined) this.set({ transport: s.transport }, s.connected ? 1 : 0)
    }
  })
  new Counter({
    name: 'pir_events_reconnects_total',
    help: 'Times this process\'s events subscriptions were made again after a lost connection (the broker\'s, or the LISTEN connection), each followed by a catch-up from the database',
    labelNames: ['transport'] as const,
    registers,
    collect () {
      this.reset()
      const s = events?.state()
      if (s) this.inc({ transport: s.transport }, s.reconnects)
    }
  })

  return {
    registry,
    contentType: registry.contentType,
    /** the exposition text of every series */
    scrape: () => registry.metrics(),

    /** one answered request; `seconds` undefined for a stream, whose lifetime is no latency */
    observeRequest (method: string, route: string, statusCode: number, seconds: number | undefined): void {
      const labels = { method, route, status_code: String(statusCode) }
      requests.inc(labels)
      if (seconds !== undefined) latency.observe(labels, seconds)
    },

    observeJob (queueName: string, outcome: JobOutcome, seconds: number): void {
      jobs.observe({ queue: queueName, outcome }, seconds)
    },

    watchSse (source: { subscriberCount: () => number, reportCount: () => number }): void {
      sse = { streams: source.subscriberCount, reports: source.reportCount }
    },
    watchQueue (boss: QueueSizes, names: string[]): void {
      queue = { boss, names }
    },
    watchDatabase (db: Database): void {
      database = db
    },
    watchRateLimits (source: RateLimitSource): void {
      limits = source
    },
    watchPasswords (source: { readonly verifications: number }): void {
      passwords = source
    },
    watchReconcile (source: ReconcileSource): void {
      reconcile = source
    },
    watchEvents (source: { state: () => TransportState }): void {
      events = source
    }
  }
}

export type Metrics = ReturnType<typeof createMetrics>
