// The faults of the chaos run, one at a time on a fixed schedule, each undone before the next: a web
// instance or the worker killed with SIGKILL and started again, Redis or PostgreSQL cut at the run's
// proxy and restored, the service's PostgreSQL connections ended by pg_terminate_backend. Each fault
// is recorded with its window, so the books can tell a 503 while the database was away from one
// that was not.
import type { Cluster } from './cluster.ts'

export type FaultKind = 'kill web' | 'kill worker' | 'cut Redis' | 'cut PostgreSQL' | 'terminate backends'

export interface FaultRecord {
  kind: FaultKind
  target: string
  start: number
  end: number
  /** connections ended (terminate) or cut (proxy) */
  connections?: number
  /** false when the fault's undoing failed (a process that did not start again) */
  recovered: boolean
  note?: string
}

/** the order the faults come in, again and again (the web instances in turn): a short run gets each once */
export const FAULT_ORDER: FaultKind[] = ['terminate backends', 'kill web', 'cut PostgreSQL', 'kill worker', 'cut Redis']

/** seconds a cut lasts, and a killed process stays down */
const CUT_S = 8
const DOWN_S = 3

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** whether a fault takes the database away from the service */
export const databaseFault = (k: FaultKind) => k === 'cut PostgreSQL' || k === 'terminate backends'

let webTurn = 0

async function inject (cluster: Cluster, kind: FaultKind): Promise<FaultRecord> {
  const start = Date.now()
  const done = (target: string, extra: Partial<FaultRecord> = {}): FaultRecord => ({ kind, target, start, end: Date.now(), recovered: true, ...extra })
  try {
    switch (kind) {
      case 'kill web': {
        const web = cluster.webs[webTurn++ % cluster.webs.length]
        await web.kill()
        await sleep(DOWN_S * 1000)
        await web.start()
        return done(web.name)
      }
      case 'kill worker': {
        await cluster.worker.kill()
        await sleep(DOWN_S * 1000)
        await cluster.worker.start()
        return done('worker')
      }
      case 'cut Redis': {
        const connections = cluster.redisProxy.open()
        await cluster.redisProxy.cut()
        await sleep(CUT_S * 1000)
        await cluster.redisProxy.restore()
        return done('Redis proxy', { connections })
      }
      case 'cut PostgreSQL': {
        const connections = cluster.pgProxy.open()
        await cluster.pgProxy.cut()
        await sleep(CUT_S * 1000)
        await cluster.pgProxy.restore()
        return done('PostgreSQL proxy', { connections })
      }
      case 'terminate backends': {
        const rows = await cluster.sql<Array<{ ended: boolean }>>`
          select pg_terminate_backend(pid) as ended from pg_stat_activity
           where datname = ${cluster.db.name} and pid <> pg_backend_pid() and application_name <> 'chaos-books'`
        return done('service connections', { connections: rows.filter((r) => r.ended).length })
      }
    }
  } catch (err) {
    return done(kind, { recovered: false, note: (err as Error).message })
  }
}

/**
 * Faults every `everyS` seconds from the start until `until`, in FAULT_ORDER; the records as they
 * happen (the list is the caller's, read while it grows).
 */
export async function runFaults (cluster: Cluster, opts: { everyS: number, until: number, running: () => boolean }, records: FaultRecord[]): Promise<void> {
  let i = 0
  for (;;) {
    const next = Date.now() + opts.everyS * 1000
    while (opts.running() && Date.now() < next) await sleep(250)
    if (!opts.running() || Date.now() > opts.until) return
    const kind = FAULT_ORDER[i++ % FAULT_ORDER.length]
    const r = await inject(cluster, kind)
    records.push(r)
    console.log(`    ${new Date(r.start).toISOString().slice(11, 19)} ${r.kind} (${r.target})${r.connections !== undefined ? `: ${r.connections} connections` : ''}` +
      ` ${((r.end - r.start) / 1000).toFixed(1)} s${r.recovered ? '' : `, NOT RECOVERED: ${r.note}`}`)
  }
}
