// Report workers: take generate jobs one at a time; a job whose every attempt failed arrives on the
// dead-letter queue, where the report is marked failed and its credit refunded.
import type PgBoss from 'pg-boss'
import type { ReportGenerator } from '../services/report-generation.ts'
import { FAILED_QUEUE, GENERATE_QUEUE, type GenerateJob } from './queue.ts'

export async function startWorkers (boss: PgBoss, generator: ReportGenerator, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await boss.work<GenerateJob>(GENERATE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await generator.run(job.data.reportId)
    })
  }
  if (count > 0) {
    await boss.work<GenerateJob>(FAILED_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      await generator.fail(job.data.reportId)
    })
  }
}
