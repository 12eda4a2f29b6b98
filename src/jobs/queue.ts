// The report-generation queue: pg-boss on the service's own database. pg-boss talks to it through
// a small executeSql adapter, so the same queue runs on PostgreSQL and on embedded PGlite
// (multi-statement SQL without parameters goes to exec, the rest to query).
import PgBoss from 'pg-boss'
import type { Database } from '../db/client.ts'
import type { ReportQueue } from '../services/reports.ts'

export const GENERATE_QUEUE = 'report-generate'
export const FAILED_QUEUE = 'report-generate-failed'

export interface GenerateJob { reportId: string }

export interface QueueOptions { jobExpireSeconds: number, maintenanceSeconds: number }

// DESIGN 6: 3 attempts with backoff; a killed worker's job comes back after its expiry.
const jobOptions = (o: QueueOptions) => ({ retryLimit: 2, retryDelay: 1, retryBackoff: true, expireInSeconds: o.jobExpireSeconds })

function adapter (database: Database) {
  return {
    async executeSql (text: string, values?: unknown[]) {
      if (!values?.length && database.kind === 'pglite' && text.includes(';')) {
        await database.exec(text)
        return { rows: [] }
      }
      if (!values?.length && database.kind === 'postgres') {
        // postgres.js: several statements only go through the simple protocol, and a BEGIN … COMMIT
        // among them needs a connection of its own
        const conn = await database.sql!.reserve()
        try {
          const result = await conn.unsafe(text).simple()
          const last = Array.isArray(result) && Array.isArray(result[result.length - 1]) ? result[result.length - 1] : result
          return { rows: Array.isArray(last) ? [...last] : [] }
        } finally {
          conn.release()
        }
      }
      return { rows: await database.query(text, values) }
    }
  }
}

export async function startQueue (database: Database, opts: QueueOptions, log: { warn: (o: object, m: string) => void }): Promise<PgBoss> {
  const boss = new PgBoss({
    db: adapter(database),
    schema: 'pgboss',
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
