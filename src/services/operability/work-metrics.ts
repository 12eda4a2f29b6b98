// The metrics an operator alerts on (docs/operations.md, What to alert on): the work waiting in the
// database (webhook deliveries, marked alerts, queued report jobs), this process's pool, and the
// ended-sessions reconcile. The backlogs are the deployment's, whichever process is scraped: they
// are read by one statement per scrape, on indexes (webhook_deliveries_due_idx, alert_pending's
// primary key, pg-boss's job_i5), never per request. When the database does not answer, their series
// are left out of that scrape (pir_db_up says why).
import { Gauge, Counter, type Registry } from 'prom-client'
import type { Database } from '../../db/client.ts'
import { poolLoad } from '../../db/pool-usage.ts'

/** what the reconcile metrics read of the session service (src/services/sessions/ended.ts) */
export interface ReconcileSource {
  reconciles: () => { runs: number, failures: number }
  inSync: () => boolean
}

export interface WorkSources {
  database?: Database
  /** the report queue's schema exists (pg-boss started): its jobs are counted too */
  jobs?: boolean
  reconcile?: ReconcileSource
}

interface Backlog {
  webhooks_pending: number
  webhooks_failed: number
  webhook_oldest_due_s: number | null
  alerts_pending: number
  alert_oldest_s: number | null
  jobs: Record<string, number> | null
}

const SOURCE_TIMEOUT_MS = 2000

// One statement, one snapshot. Ages are 0 when nothing waits: an alert on "older than N" stays quiet.
function backlogSql (jobs: boolean): string {
  return `select
    (select count(*)::int from webhook_deliveries where next_attempt_at is not null and status = 'pending') as webhooks_pending,
    (select count(*)::int from webhook_deliveries where status = 'failed') as webhooks_failed,
    (select coalesce(extract(epoch from now() - min(next_attempt_at)), 0)::float8 from webhook_deliveries
      where next_attempt_at <= now() and status = 'pending') as webhook_oldest_due_s,
    (select count(*)::int from alert_pending) as alerts_pending,
    (select coalesce(extract(epoch from now() - min(created_at)), 0)::float8 from alert_pending) as alert_oldest_s,
    ${jobs
      ? `(select json_object_agg(name, age) from (select name, extract(epoch from now() - min(start_after))::float8 as age
          from pgboss.job where state < 'active' and start_after <= now() group by name) due)`
      : 'null::json'} as jobs`
}

function withTimeout<T> (work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('metrics source timed out')), SOURCE_TIMEOUT_MS)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** the series on `registry`, reading `sources()` at each scrape (sources are attached as their owners start) */
export function registerWorkMetrics (registry: Registry, sources: () => WorkSources, queueNames: () => string[]): void {
  const registers = [registry]

  // one read per scrape, shared by the gauges below (their collects start in the same tick)
  let reading: Promise<Backlog | null> | undefined
  function backlog (): Promise<Backlog | null> {
    const { database, jobs } = sources()
    if (!database) return Promise.resolve(null)
    reading ??= withTimeout(database.query<Backlog>(backlogSql(jobs === true)))
      .then(([row]) => row ?? null, () => null)
      .finally(() => { setImmediate(() => { reading = undefined }) })
    return reading
  }

  new Gauge({
    name: 'pir_webhook_deliveries',
    help: 'Webhook deliveries of every account by state: pending (to be attempted, now or at a later retry) and failed (given up on, kept for their endpoint\'s history)',
    labelNames: ['state'] as const,
    registers,
    async collect () {
      this.reset()
      const b = await backlog()
      if (!b) return
      this.set({ state: 'pending' }, b.webhooks_pending)
      this.set({ state: 'failed' }, b.webhooks_failed)
    }
  })
  new Gauge({
    name: 'pir_webhook_oldest_due_seconds',
    help: 'Seconds since the oldest pending webhook delivery fell due (0 when none is due): the delivery workers\' lag',
    registers,
    async collect () {
      this.reset()
      const b = await backlog()
      if (b) this.set(Number(b.webhook_oldest_due_s ?? 0))
    }
  })
  new Gauge({
    name: 'pir_alert_pending_profiles',
    help: 'Watched profiles an import marked whose alerts are not computed yet (alert_pending)',
    registers,
    async collect () {
      this.reset()
      const b = await backlog()
      if (b) this.set(b.alerts_pending)
    }
  })
  new Gauge({
    name: 'pir_alert_oldest_pending_seconds',
    help: 'Seconds since the oldest marked profile in alert_pending was marked (0 when none waits): the alert workers\' lag',
    registers,
    async collect () {
      this.reset()
      const b = await backlog()
      if (b) this.set(Number(b.alert_oldest_s ?? 0))
    }
  })
  new Gauge({
    name: 'pir_queue_oldest_job_seconds',
    help: 'Seconds the oldest job waiting in each report queue has been due (created or retry, its start time past; 0 when none)',
    labelNames: ['queue'] as const,
    registers,
    async collect () {
      this.reset()
      if (!sources().jobs) return
      const b = await backlog()
      if (!b) return
      for (const name of queueNames()) this.set({ queue: name }, Number(b.jobs?.[name] ?? 0))
    }
  })

  // This process's pool, from what it hands postgres.js (src/db/pool-usage.ts): postgres.js shows no
  // pool state of its own. PGlite is one in-process connection: no series.
  new Gauge({
    name: 'pir_db_pool_connections_in_use',
    help: 'PostgreSQL: connections of this process\'s pool carrying a transaction or a statement now (transactions and statements in flight, at most the pool\'s size)',
    registers,
    collect () {
      this.reset()
      const db = sources().database
      if (db?.usage && db.sql) this.set(poolLoad(db.usage, db.sql.options.max).inUse)
    }
  })
  new Gauge({
    name: 'pir_db_pool_waiting',
    help: 'PostgreSQL: transactions and statements of this process past its pool\'s size, waiting for a connection (or pipelined behind a busy one)',
    registers,
    collect () {
      this.reset()
      const db = sources().database
      if (db?.usage && db.sql) this.set(poolLoad(db.usage, db.sql.options.max).waiting)
    }
  })

  // The reconcile of ended sessions (SESSION_RECONCILE_S): a web instance's only, so a worker has none.
  new Counter({
    name: 'pir_session_reconcile_runs_total',
    help: 'Reads of the sessions ended since the previous read (every SESSION_RECONCILE_S and after each LISTEN reconnect), since start',
    registers,
    collect () {
      const r = sources().reconcile
      if (r) { this.reset(); this.inc(r.reconciles().runs) }
    }
  })
  new Counter({
    name: 'pir_session_reconcile_failures_total',
    help: 'Of those reads, the ones that failed (the database did not answer); after three intervals without one that works, Bearer requests ask the database',
    registers,
    collect () {
      const r = sources().reconcile
      if (r) { this.reset(); this.inc(r.reconciles().failures) }
    }
  })
  new Gauge({
    name: 'pir_session_reconcile_in_sync',
    help: '1 while a reconcile of ended sessions succeeded within the last three SESSION_RECONCILE_S, else 0 (Bearer requests then ask the database)',
    registers,
    collect () {
      const r = sources().reconcile
      if (r) this.set(r.inSync() ? 1 : 0)
    }
  })
}
