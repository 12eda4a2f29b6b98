// The report-generation queue: pg-boss on the service's own database. pg-boss talks to it through
// a small executeSql adapter, so the same queue runs on PostgreSQL and on embedded PGlite
// (multi-statement SQL without parameters goes to exec, the rest to query).
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import PgBoss from 'pg-boss'
import { EnvSchema } from '../../schemas/env.ts'
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
      // ends the process (porsager/postgres#1208; docs/reliability.md, Chaos run). A statement that
      // fails inside rolls the whole transaction back, so no lock outlives it.
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

// Processes started at once on a fresh database (two web instances and a worker after the migration
// step) each create the queue's schema and queues; PostgreSQL may then answer one of them with a
// deadlock or a duplicate object. The work is the same for every process and safe to repeat, so the
// loser waits a moment and tries again, finding it done.
const RACE_CODES = new Set(['40P01', '23505', '42P07', '42710'])
const RACE_ATTEMPTS = 6

async function retryingRaces<T> (what: string, log: Log, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (attempt >= RACE_ATTEMPTS || !RACE_CODES.has((err as { code?: string }).code ?? '')) throw err
      log.warn({ err: { message: (err as Error).message }, attempt }, `${what} raced another process's; trying again`)
      await sleep(100 * attempt + Math.floor(Math.random() * 200))
    }
  }
}

/** the report queues, created when missing (an existing queue is left as it is) */
async function createQueues (boss: PgBoss, opts: QueueOptions, log: Log): Promise<void> {
  await retryingRaces('creating the report queues', log, async () => {
    if (!await boss.getQueue(FAILED_QUEUE)) await boss.createQueue(FAILED_QUEUE)
    if (!await boss.getQueue(GENERATE_QUEUE)) await boss.createQueue(GENERATE_QUEUE, { name: GENERATE_QUEUE, ...jobOptions(opts), deadLetter: FAILED_QUEUE })
  })
}

function newBoss (database: Database, opts: QueueOptions, log: Log, run: boolean): PgBoss {
  const boss = new PgBoss({
    db: adapter(database, log),
    schema: SCHEMA,
    schedule: false,
    supervise: run,
    ...(run ? { maintenanceIntervalSeconds: opts.maintenanceSeconds, monitorStateIntervalSeconds: Math.max(opts.maintenanceSeconds, 10) } : {})
  })
  boss.on('error', (err: Error) => log.warn({ err: { message: err.message } }, 'queue error'))
  return boss
}

/** the queue's schema, created or brought up to date by a PgBoss that has not started (a lost race: a new one tries again) */
async function startBoss (database: Database, opts: QueueOptions, log: Log, run: boolean): Promise<PgBoss> {
  return await retryingRaces('installing the queue\'s schema', log, async () => await newBoss(database, opts, log, run).start())
}

export async function startQueue (database: Database, opts: QueueOptions, log: Log): Promise<PgBoss> {
  const boss = await startBoss(database, opts, log, true)
  await createQueues(boss, opts, log)
  return boss
}

// Each job carries its own settings (reportQueue below): a queue made before any process started
// holds the defaults only.
const DEFAULT_QUEUE_OPTIONS: QueueOptions = {
  jobExpireSeconds: EnvSchema.properties.REPORT_JOB_EXPIRE_S.default,
  maintenanceSeconds: EnvSchema.properties.QUEUE_MAINTENANCE_S.default
}

/**
 * The migration step's part (npm run db:migrate): the queue's schema and the report queues, so that
 * the processes started after it find them made and race on nothing.
 */
export async function prepareQueue (database: Database, log: Log): Promise<void> {
  const boss = await startBoss(database, DEFAULT_QUEUE_OPTIONS, log, false)
  try {
    await createQueues(boss, DEFAULT_QUEUE_OPTIONS, log)
  } finally {
    await boss.stop({ graceful: false, wait: true, close: false })
  }
}

/**
 * The queue as the reports service sends to it. `localWorkers`: the ids of this process's report
 * workers (src/jobs/worker.ts). A worker polls every half second; one of this process's is woken
 * as a job is sent, so that a report queued on an instance that runs workers starts at once rather
 * than up to a poll later. One at a time, in turn: each wake costs the woken worker a fetch, and a
 * busy one fetches again as soon as its job ends anyway. Workers in other processes find the job at
 * their next poll.
 */
export function reportQueue (boss: PgBoss, opts: QueueOptions, localWorkers: string[] = []): ReportQueue {
  let next = 0
  return {
    async send (reportId, jobId) {
      // the id makes a second send of the same generate call a no-op
      await boss.send(GENERATE_QUEUE, { reportId } satisfies GenerateJob, { id: jobId, ...jobOptions(opts), deadLetter: FAILED_QUEUE })
      if (localWorkers.length > 0) boss.notifyWorker(localWorkers[next++ % localWorkers.length]!)
    }
  }
}
