// The report queue and, when WORKERS > 0, this process's report workers, webhook delivery workers,
// alert worker and alert digest loop.
// Stops cleanly on close: a job or delivery in flight is finished or, if the process dies, picked up
// elsewhere after its expiry or lease.
import fp from 'fastify-plugin'
import type PgBoss from 'pg-boss'
import type { FastifyInstance } from 'fastify'
import { reportQueue, startQueue, type QueueOptions } from '../jobs/queue.ts'
import { startWorkers, type JobObserver } from '../jobs/worker.ts'
import { startDeliveryLoop } from '../jobs/webhooks.ts'
import { startDigestLoop } from '../jobs/digests.ts'
import { startAlertLoop } from '../jobs/alerts.ts'
import { createReportGenerator } from '../services/reports/generation.ts'
import type { ReportQueue } from '../services/reports/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    queue: { boss: PgBoss, reports: ReportQueue }
  }
}

export interface QueuePluginOptions extends QueueOptions {
  workers: number
  /** config.webhooks: the delivery workers run beside the report workers */
  webhooks: { retryScheduleS: number[], allowPrivate: boolean }
  /** config.alerts: the alert worker runs beside them too */
  alerts: { batchProfiles: number }
  now?: () => number
  /** the metrics' job-duration histogram, when metrics are on */
  observeJob?: JobObserver
}

async function queuePlugin (app: FastifyInstance, opts: QueuePluginOptions) {
  const boss = await startQueue(app.database, opts, app.log)
  const generator = createReportGenerator({ database: app.database, now: opts.now, accountChanges: app.accountChanges, webhookScheduleS: opts.webhooks.retryScheduleS, events: app.events })
  const workers = await startWorkers(boss, generator, opts.workers, opts.observeJob)
  app.decorate('queue', { boss, reports: reportQueue(boss, opts, workers) })
  const deliveries = opts.workers > 0 ? startDeliveryLoop(app.database, { webhooks: opts.webhooks, log: app.log }) : null
  const alerts = opts.workers > 0 ? startAlertLoop(app.database, { alerts: opts.alerts, webhooks: opts.webhooks, now: opts.now, log: app.log, events: app.events }) : null
  // the alert digests beside the deliveries; their service (and its mailer) is registered after this plugin
  let digests: { stop: () => Promise<void> } | null = null
  if (opts.workers > 0) app.addHook('onReady', async () => { digests = startDigestLoop(app.services.alertDigest, { log: app.log }) })
  app.addHook('preClose', async () => {
    await Promise.all([boss.stop({ graceful: true, wait: true, timeout: 8000 }), deliveries?.stop(), alerts?.stop(), digests?.stop()])
  })
}

export default fp(queuePlugin, { name: 'queue', dependencies: ['db', 'events', 'account-changes'] })
