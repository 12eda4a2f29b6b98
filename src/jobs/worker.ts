// Report workers: take generate jobs one at a time; a job whose every attempt failed arrives on the
// dead-letter queue, where the report is marked failed and its credit refunded.
import { performance } from 'node:perf_hooks'
import type PgBoss from 'pg-boss'
import type { ReportGenerator } from '../services/report-generation.ts'
import { FAILED_QUEUE, GENERATE_QUEUE, type GenerateJob } from './queue.ts'

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

export async function startWorkers (boss: PgBoss, generator: ReportGenerator, count: number, observe?: JobObserver): Promise<void> {
  const run = timed(GENERATE_QUEUE, observe, (data) => generator.run(data.reportId))
  const fail = timed(FAILED_QUEUE, observe, (data) => generator.fail(data.reportId))
  for (let i = 0; i < count; i++) {
    await boss.work<GenerateJob>(GENERATE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await run(job.data)
    })
  }
  if (count > 0) {
    await boss.work<GenerateJob>(FAILED_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      await fail(job.data)
    })
  }
}
