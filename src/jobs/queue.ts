// The report-generation queue: pg-boss on the service's own database. pg-boss talks to it through
// a small executeSql adapter, so the same queue runs on PostgreSQL and on embedded PGlite
// (multi-statement SQL without parameters goes to exec, the rest to query).
import { createRequire } from 'node:module'
import PgBoss from 'pg-boss'
import { isDatabaseDown, type Database } from '../db/client.ts'
import type { ReportQueue } from '../services/reports/index.ts'

export const GENERATE_QUEUE = 'report-generate'
export const FAILED_QUEUE = 'report-generate-failed'

export interface GenerateJob { reportId: string }

export interface QueueOptions { jobExpireSeconds: number, maintenanceSeconds: number }

// 3 attempts with backoff; a killed worker's job comes back after its expiry (docs/architecture.md,
// A report generation).
const jobOptions = (o: QueueOptions) => ({ retryLimit: 2, retryDelay: 1, retryBackoff: true, expireInSeconds: o.jobExpireSeconds })

const SCHEMA = 'pgboss'

type Log = { warn: (o: object, m: string) => void }

// pg-boss 10 ends a job with a complete() or fail() that it does not await (manager.js, onFetch;
// timgit/pg-boss#577): if the database is unreachable at that moment, the rejection goes unhandled
// and takes the whole process down. Those two statements, taken from pg-boss's own plans, are
// recognised below and, when the database is down, answered as "no job changed": the job stays
// active and runs again after its expiry (report generation is safe to repeat).
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<'completeJobs' | 'failJobsById', (schema: string) => string>
const UNAWAITED = new Set([plans.completeJobs(SCHEMA), plans.failJobsById(SCHEMA)])

/** pg-boss's locked() statements: BEGIN; … COMMIT; around what runs in the transaction */
const OWN_TRANSACTION = /^\s*BEGIN\s*;([\s\S]*?);?\s*COMMIT\s*;?\s*$/i

function adapter (database: Database, log: Log) {
  async function run (text: string, values?: unknown[]) {
    if (!values?.length && database.kind === 'pglite' && text.includes(';')) {
      await database.exec(text)
      return { rows: [] }
    }
    if (!values?.length && database.kind === 'postgres') {
      // postgres.js: several statements only go through the simple protocol, and it refuses a BEGIN
      // on a pooled connection. pg-boss's own BEGIN … COMMIT is taken off and the rest runs in
      // sql.begin, not on a reserve()d connection: postgres.js 3.4 puts a reserved connection whose
      // backend died back into its pool, and the next write on it throws outside any promise and
      // ends the process (porsager/postgres#1208; docs/reliability.md, Chaos run).
      const body = OWN_TRANSACTION.exec(text)?.[1] ?? text
      const result = await database.sql!.begin(async (tx) => await tx.unsafe(body).simple())
      const last = Array.isArray(result) && Array.isArray(result[result.length - 1]) ? result[result.length - 1] : result
      return { rows: Array.isArray(last) ? [...last] : [] }
    }
    return { rows: await database.query(text, values) }
  }
  return {
    async executeSql (text: string, values?: unknown[]) {
      try {
        return await run(text, values)
      } catch (err) {
        if (!UNAWAITED.has(text) || !isDatabaseDown(err)) throw err
        log.warn({ err: { message: (err as Error).message } }, 'the end of a job could not be recorded (database unavailable); the job runs again after its expiry')
        return { rows: [{ count: 0 }] }
      }
    }
  }
}

export async function startQueue (database: Database, opts: QueueOptions, log: Log): Promise<PgBoss> {
  const boss = new PgBoss({
    db: adapter(database, log),
    schema: SCHEMA,
    schedule: false,
    supervise: true,
    maintenanceIntervalSeconds: opts.maintenanceSeconds,
    monitorStateIntervalSeconds: Math.max(opts.maintenanceSeconds, 10)
  })
  boss.on('error', (err: Error) => log.warn({ err: { message: err.message } }, 'queue error'))
  await boss.start()
  await boss.createQueue(FAILED_QUEUE)
  await boss.createQueue(GENERATE_QUEUE, { name: GENERATE_QUEUE, ...jobOptions(opts), deadLetter: FAILED_QUEUE })
  return boss
}

export function reportQueue (boss: PgBoss, opts: QueueOptions): ReportQueue {
  return {
    async send (reportId, jobId) {
      // the id makes a second send of the same generate call a no-op
      await boss.send(GENERATE_QUEUE, { reportId } satisfies GenerateJob, { id: jobId, ...jobOptions(opts), deadLetter: FAILED_QUEUE })
    }
  }
}
