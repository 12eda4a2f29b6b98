// The alert worker: in every process that runs report workers (WORKERS >= 1, `npm run worker`), a
// loop that raises the alerts of the watched profiles an import marked
// (docs/decisions/watches-and-alerts.md, Watches and alerts). It looks at alert_pending a few times
// a second while idle, so alerts follow an import within a moment, and runs batch after batch while
// profiles are pending.
import type { Database } from '../db/client.ts'
import { createAlertRaiser, type AlertRaiser } from '../services/alerts/raising.ts'
import type { EventPublisher } from '../services/events/transport.ts'
import { startPolling } from './polling.ts'

/** a claimed batch is kept from other workers this long: far longer than a batch takes to compute and commit */
export const ALERT_LEASE_MS = 30_000
/** how often an idle loop looks for pending profiles, in ms */
export const ALERT_POLL_MS = 250

export interface AlertLoopOptions {
  /** config.alerts (batchProfiles) */
  alerts: { batchProfiles: number }
  /** config.webhooks (the watch.alert deliveries' first attempt) */
  webhooks: { retryScheduleS: number[] }
  pollMs?: number
  leaseMs?: number
  now?: () => number
  log: { warn: (o: object, m: string) => void }
  /** where the alerts are announced: the process's events transport (NOTIFY in the transaction when not given) */
  events?: Pick<EventPublisher, 'staged'>
}

export function alertRaiser (database: Database, opts: AlertLoopOptions): AlertRaiser {
  return createAlertRaiser({
    database,
    batchProfiles: opts.alerts.batchProfiles,
    leaseMs: opts.leaseMs ?? ALERT_LEASE_MS,
    webhookScheduleS: opts.webhooks.retryScheduleS,
    now: opts.now,
    events: opts.events,
    log: opts.log
  })
}

/** start the loop; stop() ends it after the batch in flight (a batch cut short is taken again after its lease) */
export function startAlertLoop (database: Database, opts: AlertLoopOptions): { stop: () => Promise<void> } {
  const raiser = alertRaiser(database, opts)
  // while profiles are pending the next batch starts at once
  return startPolling(async () => {
    try {
      return (await raiser.runBatch()).claimed > 0
    } catch (err) {
      opts.log.warn({ err: { message: (err as Error).message } }, 'alert batch not raised')
      return false
    }
  }, opts.pollMs ?? ALERT_POLL_MS)
}
