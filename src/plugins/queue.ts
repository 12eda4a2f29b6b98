// The report queue and, when WORKERS > 0, this process's report workers. Stops cleanly on close:
// a job in flight is finished or, if the process dies, picked up elsewhere after its expiry.
import fp from 'fastify-plugin'
import type PgBoss from 'pg-boss'
import type { FastifyInstance } from 'fastify'
import { reportQueue, startQueue, type QueueOptions } from '../jobs/queue.ts'
import { startWorkers, type JobObserver } from '../jobs/worker.ts'
import { createReportGenerator } from '../services/reports/generation.ts'
import type { ReportQueue } from '../services/reports/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    queue: { boss: PgBoss, reports: ReportQueue }
  }
}

export interface QueuePluginOptions extends QueueOptions {
  workers: number
  now?: () => number
  /** the metrics' job-duration histogram, when metrics are on */
  observeJob?: JobObserver
}

async function queuePlugin (app: FastifyInstance, opts: QueuePluginOptions) {
  const boss = await startQueue(app.database, opts, app.log)
  app.decorate('queue', { boss, reports: reportQueue(boss, opts) })
  await startWorkers(boss, createReportGenerator({ database: app.database, now: opts.now, accountChanges: app.accountChanges }), opts.workers, opts.observeJob)
  app.addHook('preClose', async () => {
    await boss.stop({ graceful: true, wait: true, timeout: 8000 })
  })
}

export default fp(queuePlugin, { name: 'queue', dependencies: ['db', 'account-changes'] })
