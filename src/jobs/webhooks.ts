// Webhook delivery workers: in every process that runs report workers (WORKERS >= 1, `npm run
// worker`), a loop that claims due deliveries from webhook_deliveries and attempts them, several at
// once (docs/decisions/programs.md, Webhooks). The table is the queue; a claim is a lease, so a
// process that dies mid-attempt costs nothing but the lease's wait before another process makes the
// attempt.
import type { Database } from '../db/client.ts'
import { createOutboundPost } from '../services/outbound/post.ts'
import { createDeliverer, type Deliverer } from '../services/webhooks/delivery.ts'

/** an attempt's deadline: connect, send, the answer's status line and headers */
export const ATTEMPT_TIMEOUT_MS = 15_000
/** a claimed delivery is kept from other workers this long: the deadline and a margin for recording the outcome */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 15_000

export interface DeliveryLoopOptions {
  /** config.webhooks */
  webhooks: { retryScheduleS: number[], allowPrivate: boolean }
  /** attempts in flight at once in this process (SENDERS) */
  concurrency?: number
  /** how often the table is looked at for due deliveries, in ms */
  pollMs?: number
  log: { warn: (o: object, m: string) => void }
}

export function deliverer (database: Database, opts: DeliveryLoopOptions): Deliverer {
  const { allowPrivate, retryScheduleS } = opts.webhooks
  const post = createOutboundPost({ allowPrivate, httpsOnly: !allowPrivate, timeoutMs: ATTEMPT_TIMEOUT_MS, userAgent: 'profile-interest-reports-webhooks' })
  return createDeliverer({ database, post, retryScheduleS, leaseMs: LEASE_MS, log: opts.log })
}

/** attempts in flight at once in one process, unless told */
export const SENDERS = 8
/** attempts in flight at once to one endpoint, from one process */
export const PER_ENDPOINT = 1
/** the share of a process's senders one account may hold: a quarter (at least 1) */
export const perAccountShare = (senders: number): number => Math.max(1, Math.floor(senders / 4))

/**
 * Start the loop; stop() ends it and waits for the attempts in flight (at most `waitMs`; an
 * abandoned one is retried after its lease). Fair by account and endpoint
 * (docs/decisions/programs.md, Webhooks): one attempt at a time per endpoint and a quarter of the
 * senders per account, so that an account whose endpoints hang for the whole 15 s deadline holds
 * its own share and nothing more. An attempt that ends makes room at once (the loop looks again
 * without waiting for the next poll).
 */
export function startDeliveryLoop (database: Database, opts: DeliveryLoopOptions): { stop: (waitMs?: number) => Promise<void> } {
  const d = deliverer(database, opts)
  const concurrency = opts.concurrency ?? SENDERS
  const perAccount = perAccountShare(concurrency)
  const pollMs = opts.pollMs ?? 500
  const inFlight = new Set<Promise<unknown>>()
  const busyEndpoints = new Map<string, number>()
  const busyAccounts = new Map<string, number>()
  const add = (m: Map<string, number>, key: string, by: number) => {
    const n = (m.get(key) ?? 0) + by
    if (n > 0) m.set(key, n)
    else m.delete(key)
  }
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<void> = Promise.resolve()
  let again = false

  async function tick () {
    const room = concurrency - inFlight.size
    if (room <= 0) return
    try {
      const full = [...busyEndpoints].filter(([, n]) => n >= PER_ENDPOINT).map(([id]) => id)
      const claimed = await d.claim(room, { busyEndpoints: full, busyAccounts: new Map(busyAccounts), perAccount })
      for (const delivery of claimed) {
        add(busyEndpoints, delivery.endpoint_id, 1)
        add(busyAccounts, delivery.user_id, 1)
        const p = d.attempt(delivery).catch((err: Error) => {
          // the outcome could not be written (the database went away): the lease runs out and the attempt is made again
          opts.log.warn({ err: { message: err.message }, deliveryId: delivery.id }, 'webhook delivery attempt not recorded')
        }).finally(() => {
          inFlight.delete(p)
          add(busyEndpoints, delivery.endpoint_id, -1)
          add(busyAccounts, delivery.user_id, -1)
          soon()
        })
        inFlight.add(p)
      }
    } catch (err) {
      opts.log.warn({ err: { message: (err as Error).message } }, 'webhook deliveries could not be claimed')
    }
  }

  let running = false
  const loop = async () => {
    if (running) {
      again = true
      return
    }
    running = true
    clearTimeout(timer)
    do {
      again = false
      current = tick()
      await current
    } while (again && !stopped)
    running = false
    if (!stopped) timer = setTimeout(() => { void loop() }, pollMs)
  }
  /** an attempt ended: look again now, for its endpoint's next delivery or another account's */
  const soon = () => { if (!stopped) void loop() }
  void loop()

  return {
    async stop (waitMs = 8000) {
      stopped = true
      clearTimeout(timer)
      await current
      let waited: NodeJS.Timeout | undefined
      await Promise.race([Promise.all(inFlight), new Promise((resolve) => { waited = setTimeout(resolve, waitMs) })])
      clearTimeout(waited)
    }
  }
}
