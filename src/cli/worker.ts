// npm run worker: a report-generation, webhook-delivery, alert and alert-digest worker process without an HTTP listener (docs/operations.md, Scale-out on PostgreSQL).
// WORKERS sets how many jobs it runs at once (at least 1 here).
import pino from 'pino'
import { loadConfig, type Config } from '../config.ts'
import { ConfigError } from '../errors.ts'
import { openForCommand } from './open-database.ts'
import { FAILED_QUEUE, GENERATE_QUEUE, startQueue } from '../jobs/queue.ts'
import { startWorkers } from '../jobs/worker.ts'
import { startDeliveryLoop } from '../jobs/webhooks.ts'
import { startDigestLoop } from '../jobs/digests.ts'
import { createMailService } from '../services/accounts/mail.ts'
import { createAlertDigest } from '../services/alerts/digest.ts'
import { createUnsubscribeTokens } from '../services/alerts/unsubscribe-tokens.ts'
import { API_PREFIX } from '../app.ts'
import { startAlertLoop } from '../jobs/alerts.ts'
import { createReportGenerator } from '../services/reports/generation.ts'
import { createEventPublisher } from '../services/events/index.ts'
import { createMetrics } from '../services/operability/metrics.ts'
import { serveMetrics } from '../startup.ts'
import { onStop } from '../stop-signals.ts'

let config: Config
try {
  config = loadConfig()
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
}
const log = pino({ level: config.logLevel === 'silent' ? 'silent' : config.logLevel })
// never through a server's socket: that server runs report jobs itself (WORKERS), and a worker's
// polling would queue behind, and hold up, the server's own use of the one session it lends
const database = await openForCommand(config, 'npm run worker', { throughServer: false })
const boss = await startQueue(database, config.queue, log)
const count = Math.max(1, config.workers)
// METRICS_PORT: this worker's own job durations, pool and database, and the queue and backlogs it
// works off, on METRICS_HOST:METRICS_PORT; none of a web instance's series (docs/operations.md, Metrics)
const metrics = config.metricsPort !== null ? createMetrics({ worker: true }) : null
metrics?.watchDatabase(database)
metrics?.watchQueue(boss, [GENERATE_QUEUE, FAILED_QUEUE])
// EVENTS_URL: the report events and alerts are announced on the broker the web instances listen to
const events = createEventPublisher({ url: config.eventsUrl, database })
await startWorkers(boss, createReportGenerator({ database, webhookScheduleS: config.webhooks.retryScheduleS, events }), count, metrics?.observeJob)
// webhook deliveries beside the report jobs (docs/decisions/programs.md, Webhooks)
const deliveries = startDeliveryLoop(database, { webhooks: config.webhooks, log })
// the alerts of watched profiles an import marked (docs/decisions/watches-and-alerts.md, Watches
// and alerts)
const alerts = startAlertLoop(database, { alerts: config.alerts, webhooks: config.webhooks, log, events })
// the alert digest mails beside them (docs/decisions/watches-and-alerts.md, Watches and alerts)
const mail = createMailService({ ...config.mail, log })
const digests = startDigestLoop(createAlertDigest({
  database, send: mail.send, tokens: createUnsubscribeTokens(config.mfa), publicUrl: config.publicUrl, apiPrefix: API_PREFIX,
  intervalH: config.alerts.digestIntervalH, log
}), { log })
const metricsListener = metrics ? await serveMetrics(metrics, { host: config.metricsHost, port: config.metricsPort!, log }) : null
log.info({ workers: count }, 'report worker started')

// a repeated SIGTERM changes nothing (src/stop-signals.ts)
onStop(10_000, log, async ({ signal, err }) => {
  if (err) log.error({ err }, 'worker stopping after an error')
  else log.info({ signal }, 'worker stopping')
  await Promise.all([boss.stop({ graceful: true, wait: true, timeout: 8000 }), deliveries.stop(), alerts.stop(), digests.stop()])
  await mail.close()
  await metricsListener?.close()
  await events.close()
  await database.close()
})
