// Report workers: take generate jobs one at a time; a job whose every attempt failed arrives on the
// dead-letter queue, where the report is marked failed and its credit refunded.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type PgBoss from 'pg-boss'
import { isDatabaseDown } from '../db/client.ts'
import type { ReportGenerator } from '../services/reports/generation.ts'
import { FAILED_QUEUE, GENERATE_QUEUE, type GenerateJob } from './queue.ts'

/** how often a job whose database went away tries again */
const DATABASE_RETRY_MS = 500

/**
 * Run a job; while it fails only because the database cannot be reached, wait and run it again (the
 * generator is safe to run twice), until the job's expiry is near. A database outage is not the
 * job's fault: throwing would spend an attempt, and the failure could not even be recorded while
 * the database is away, so the job would come back only after its expiry. This way the report
 * carries on within a second of the database's return.
 */
async function throughOutages (job: PgBoss.Job<GenerateJob>, work: (data: GenerateJob) => Promise<void>): Promise<void> {
  const deadline = Date.now() + (Number(job.expireInSeconds) - 1) * 1000
  for (;;) {
    try {
      return await work(job.data)
    } catch (err) {
      if (!isDatabaseDown(err) || Date.now() + DATABASE_RETRY_MS >= deadline) throw err
      await sleep(DATABASE_RETRY_MS)
    }
  }
}

/** told how long each job took and whether it threw (the metrics' job-duration histogram) */
export type JobObserver = (queue: string, outcome: 'completed' | 'failed', seconds: number) => void

function timed (queue: string, observe: JobObserver | undefined, work: (job: GenerateJob) => Promise<void>) {
  if (!observe) return work
  return async (job: GenerateJob) => {
    const start = performance.now()
    try {
      await work(job)
      observe(queue, 'completed', (performance.now() - start) / 1000)
    } catch (err) {
      observe(queue, 'failed', (performance.now() - start) / 1000)
      throw err
    }
  }
}

/** `count` report workers and, with any, the dead-letter queue's; the report workers' ids */
export async function startWorkers (boss: PgBoss, generator: ReportGenerator, count: number, observe?: JobObserver): Promise<string[]> {
  const run = timed(GENERATE_QUEUE, observe, (data) => generator.run(data.reportId))
  const fail = timed(FAILED_QUEUE, observe, (data) => generator.fail(data.reportId))
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    ids.push(await boss.work<GenerateJob>(GENERATE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await throughOutages(job, run)
    }))
  }
  if (count > 0) {
    await boss.work<GenerateJob>(FAILED_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      await throughOutages(job, fail)
    })
  }
  return ids
}
