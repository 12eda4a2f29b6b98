// Webhook delivery workers: in every process that runs report workers (WORKERS >= 1, `npm run
// worker`), a loop that claims due deliveries from webhook_deliveries and attempts them, several at
// once (docs/decisions.md, Webhooks). The table is the queue; a claim is a lease, so a process that
// dies mid-attempt costs nothing but the lease's wait before another process makes the attempt.
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
  /** attempts in flight at once in this process */
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

/** start the loop; stop() ends it and waits for the attempts in flight (at most `waitMs`; an abandoned one is retried after its lease) */
export function startDeliveryLoop (database: Database, opts: DeliveryLoopOptions): { stop: (waitMs?: number) => Promise<void> } {
  const d = deliverer(database, opts)
  const concurrency = opts.concurrency ?? 8
  const pollMs = opts.pollMs ?? 500
  const inFlight = new Set<Promise<unknown>>()
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<void> = Promise.resolve()

  async function tick () {
    const room = concurrency - inFlight.size
    if (room <= 0) return
    try {
      const claimed = await d.claim(room)
      for (const delivery of claimed) {
        const p = d.attempt(delivery).catch((err: Error) => {
          // the outcome could not be written (the database went away): the lease runs out and the attempt is made again
          opts.log.warn({ err: { message: err.message }, deliveryId: delivery.id }, 'webhook delivery attempt not recorded')
        }).finally(() => { inFlight.delete(p) })
        inFlight.add(p)
      }
    } catch (err) {
      opts.log.warn({ err: { message: (err as Error).message } }, 'webhook deliveries could not be claimed')
    }
  }

  const loop = async () => {
    current = tick()
    await current
    if (!stopped) timer = setTimeout(() => { void loop() }, pollMs)
  }
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
