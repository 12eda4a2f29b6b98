// The database's floor for a write: the simplest write transaction, one row of a few bytes inserted
// and committed, as fast as `clients` connections send it for `seconds`. What it gives a database
// core (commits per CPU-second of the backends, bench/lib/cpu.ts) is the baseline of the service's
// commits per database core; what it gives the whole server per second is bounded by the WAL
// flushes of this disk (synchronous_commit on: each commit waits for its flush, concurrent commits
// share one).
import postgres from 'postgres'
import type { DatabaseMeter } from './cpu.ts'
import { round } from './results.ts'

export interface CommitFloor {
  commits: number
  seconds: number
  /** commits a second, the whole server, `clients` connections */
  perSecond: number
  /** commits per CPU-second of the backends: one database core's worth */
  perBackendCore: number
  backendCpuMsPerCommit: number
  backgroundCpuMsPerCommit: number
  clients: number
  /** client backends of other databases active meanwhile (bench/lib/cpu.ts) */
  othersActive: number
}

export async function commitFloor (url: string, meter: DatabaseMeter, opts: { clients: number, seconds: number }): Promise<CommitFloor> {
  const sql = postgres(url, { max: opts.clients, onnotice: () => {} })
  try {
    await sql`create table if not exists bench_commit_floor (id bigserial primary key, at timestamptz not null default now())`
    // every connection open before the window
    await Promise.all(Array.from({ length: opts.clients }, () => sql`select 1`))
    const stop = await meter.start()
    const t0 = performance.now()
    const until = t0 + opts.seconds * 1000
    let commits = 0
    await Promise.all(Array.from({ length: opts.clients }, async () => {
      while (performance.now() < until) {
        await sql`insert into bench_commit_floor default values`
        commits++
      }
    }))
    const seconds = (performance.now() - t0) / 1000
    const work = await stop()
    return {
      commits,
      seconds: round(seconds, 2),
      perSecond: round(commits / seconds, 1),
      perBackendCore: round(commits / work.backendCpu, 1),
      backendCpuMsPerCommit: round(work.backendCpu * 1000 / commits, 4),
      backgroundCpuMsPerCommit: round(work.backgroundCpu * 1000 / commits, 4),
      clients: opts.clients,
      othersActive: work.othersActive
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}
