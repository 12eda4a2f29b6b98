// pg-boss 10 ends each job with a complete() or fail() that it does not await: were the database
// gone at that moment, the rejection would go unhandled (tap fails the test on one; in the service
// it would stop the process). The queue's adapter answers those two statements itself then, with a
// warning: the jobs stay active and run again after their expiry.
import t from 'tap'
import { freshDatabase } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { GENERATE_QUEUE, startQueue, type GenerateJob } from '../../src/jobs/queue.ts'

t.test('jobs that end while the database is away: no unhandled rejection, a warning each', async (t) => {
  const database = await freshDatabase(t)
  const warnings: string[] = []
  const boss = await startQueue(database, { jobExpireSeconds: 60, maintenanceSeconds: 60 }, { warn: (_o, m) => { warnings.push(m) } })
  const started = new Set<string>()
  let finish!: () => void
  const finishing = new Promise<void>((resolve) => { finish = resolve })
  // two workers, so that both jobs are taken before the database goes: one succeeds, one throws
  for (let i = 0; i < 2; i++) {
    await boss.work<GenerateJob>(GENERATE_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      started.add(job.data.reportId)
      await finishing
      if (job.data.reportId === 'fails') throw new Error('generation failed')
    })
  }
  await boss.send(GENERATE_QUEUE, { reportId: 'succeeds' })
  await boss.send(GENERATE_QUEUE, { reportId: 'fails' })
  await until(() => started.size === 2, { timeoutMs: 30_000, what: 'both jobs to be taken' })

  await database.close()
  finish()
  const ended = (m: string) => m.startsWith('the end of a job could not be recorded')
  await until(() => warnings.filter(ended).length === 2, { timeoutMs: 30_000, what: 'both ends to meet the closed database' })
  t.equal(warnings.filter(ended).length, 2, 'complete() and fail() each answered with a warning instead of a rejection')
  await boss.stop({ graceful: false, close: false, wait: true }).catch(() => {})
})
