// CPU time, read from /proc (Linux): what a process itself spent, whatever else shares the machine,
// so that a rate per core holds on a busy machine where a rate per second does not. And the
// database's side of the same work: the CPU of the scenario database's backends, of PostgreSQL's
// background processes (WAL writer, checkpointer, autovacuum), and the transactions that wrote
// (each takes a transaction id and flushes the WAL at its commit).
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import type postgres from 'postgres'

const TICKS_PER_SECOND = Number(String(execFileSync('getconf', ['CLK_TCK'])).trim()) || 100

/**
 * CPU seconds of a process, all its threads; 0 once it is gone. The nanoseconds each thread has run
 * (/proc/<pid>/task/<tid>/schedstat), summed: /proc/<pid>/stat counts in ticks of 10 ms, too coarse
 * for a few milliseconds of work a second over a window of seconds. A thread that has ended takes its
 * time with it; the processes measured here keep theirs (V8's, libuv's pool, the module loader's).
 */
export function cpuSeconds (pid: number | undefined): number {
  if (pid === undefined) return 0
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
    readFileSync(`/proc/${pid}/task/${tids[0]}/schedstat`)
  } catch {
    return ticksOf(pid)
  }
  let ns = 0
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // the thread ended since the listing
    }
  }
  return ns / 1e9
}

/** user + system CPU seconds from /proc/<pid>/stat, where there is no schedstat */
function ticksOf (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name may hold spaces and parentheses: the fields after it count from its last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return 0
  }
}

/** CPU seconds of each of these processes, the sum of the gaps from `from` (a process new since then counts whole) */
function cpuSince (pids: number[], from: Map<number, number>): number {
  return pids.reduce((sum, pid) => sum + Math.max(0, cpuSeconds(pid) - (from.get(pid) ?? 0)), 0)
}

export interface DatabaseWork {
  /** CPU seconds of the database's client backends (the meter's own left out) */
  backendCpu: number
  /** CPU seconds of PostgreSQL's background processes, shared by every database of the server */
  backgroundCpu: number
  /** transaction ids taken: transactions that wrote, the server's whole (see othersActive) */
  writes: number
  /** the database's client connections at the end */
  connections: number
  /** client backends of other databases that ran something in the window: their writes are in `writes` too */
  othersActive: number
}

export interface DatabaseMeter {
  /** start a window; its end gives the work done in it */
  start: () => Promise<() => Promise<DatabaseWork>>
}

/**
 * The work of one database of the server `sql` is connected to. A backend that ends inside a
 * window takes its CPU with it: the service's pools keep their connections for 60 s idle, longer
 * than any window here.
 */
export function databaseMeter (sql: postgres.Sql, database: string): DatabaseMeter {
  async function pids () {
    const rows = await sql<Array<{ pid: number, client: boolean }>>`
      select pid, backend_type = 'client backend' as client from pg_stat_activity
      where pid <> pg_backend_pid() and (datname = ${database} or backend_type <> 'client backend')`
    return { backends: rows.filter((r) => r.client).map((r) => r.pid), background: rows.filter((r) => !r.client).map((r) => r.pid) }
  }
  // the next transaction id to be given, without taking one
  const nextXid = async () => Number((await sql<Array<{ x: string }>>`select pg_snapshot_xmax(pg_current_snapshot())::text as x`)[0].x)
  return {
    async start () {
      const before = await pids()
      const cpu = new Map([...before.backends, ...before.background].map((pid) => [pid, cpuSeconds(pid)]))
      const xid = await nextXid()
      const [{ at }] = await sql<Array<{ at: Date }>>`select clock_timestamp() as at`
      return async () => {
        const after = await pids()
        const writes = await nextXid() - xid
        const [{ n }] = await sql<Array<{ n: number }>>`
          select count(*)::int as n from pg_stat_activity
          where backend_type = 'client backend' and datname <> ${database} and pid <> pg_backend_pid()
            and (state = 'active' or state_change > ${at})`
        return {
          backendCpu: cpuSince(after.backends, cpu),
          backgroundCpu: cpuSince(after.background, cpu),
          writes,
          connections: after.backends.length,
          othersActive: n
        }
      }
    }
  }
}
