// The Stripe webhook: a delivery's signature is checked on the raw bytes, the event is read
// defensively (a webhook endpoint may be pinned to an older API version), and its subscription is
// applied once. The acquisition code travels as metadata: a subscription that lacks it gets it back
// with subscriptions.update. No Fastify types here.
import Stripe from 'stripe'
import { BadRequest } from '../../errors.ts'
import type { BillingQueries, SubscriptionState, WebhookEvent } from './queries.ts'
import { isRefusal, type BillingLog, type StripeClient } from './stripe.ts'
import { isFinal, keepsStoredRow } from './subscription-state.ts'

const SUBSCRIPTION_EVENTS = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted'])
// Signatures older than this many seconds are refused (Stripe's own default).
const SIGNATURE_TOLERANCE_S = 300

export type Outcome = 'applied' | 'duplicate' | 'ignored'

// ---------------------------------------------------------------- reading Stripe's JSON

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown, max = 255): string | undefined => typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined
/** an id that Stripe may send either as a string or as the expanded object */
const idOf = (v: unknown): string | undefined => str(v) ?? (isObject(v) ? str(v.id) : undefined)
const metadataOf = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (isObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x
  return out
}

/** the fields the service keeps of a Stripe subscription (current_period_end on the subscription
 *  itself in older API versions, on its item in newer ones) */
export function readSubscription (object: unknown, preferredPriceId: string): SubscriptionState | null {
  if (!isObject(object)) return null
  const id = str(object.id)
  const status = str(object.status, 64)
  if (!id || !status) return null
  const items = isObject(object.items) && Array.isArray(object.items.data) ? object.items.data.filter(isObject) : []
  const item = items.find((i) => idOf(i.price) === preferredPriceId) ?? items[0]
  // Unix seconds before the year 10000: anything else would be an Invalid Date in the row
  const periodEnd = [object.current_period_end, item?.current_period_end]
    .find((x) => typeof x === 'number' && Number.isSafeInteger(x) && x > 0 && x < 253402300800) as number | undefined
  return {
    id,
    status,
    customerId: idOf(object.customer),
    metadata: metadataOf(object.metadata),
    priceId: item ? idOf(item.price) ?? null : null,
    currentPeriodEnd: periodEnd !== undefined ? new Date(periodEnd * 1000) : null
  }
}

// ---------------------------------------------------------------- handling an event

export interface WebhookDeps {
  stripe: StripeClient
  queries: BillingQueries
  webhookSecret: string
  priceId: string
  now: () => number
  log: BillingLog
  /** a user's subscription changed here (src/services/accounts/index.ts drops its view of the account) */
  accountChanges: { changed: (userId: string) => void }
}

export function createWebhookHandler (deps: WebhookDeps) {
  const { stripe, queries, log, now } = deps
  const { call } = stripe

  async function ignore (event: WebhookEvent): Promise<Outcome> {
    return (await queries.recordEvent(event)) ? 'ignored' : 'duplicate'
  }

  async function applySubscription (event: WebhookEvent, sub: SubscriptionState, userIdHints: Array<string | undefined>): Promise<Outcome> {
    const owner = await queries.ownerOf(sub.customerId, [sub.metadata.userId, ...userIdHints])
    if (!owner) {
      log.warn({ event: event.id, subscription: sub.id }, 'stripe subscription of no known user')
      return ignore(event)
    }
    const stored = await queries.storedSubscription(sub.id)
    const stale = stored !== undefined && keepsStoredRow(stored, sub.status, event.created)
    // Before the event is recorded: if Stripe fails here the webhook answers 503 and Stripe
    // redelivers; the key (per event) makes the retried update a no-op at Stripe.
    if (!stale && owner.acquisitionCode && sub.metadata.acquisition_code !== owner.acquisitionCode && !isFinal(sub.status)) {
      await call('subscription update', (s) => s.subscriptions.update(
        sub.id,
        { metadata: { acquisition_code: owner.acquisitionCode!, userId: owner.id } },
        { idempotencyKey: `subscription-metadata-${event.id}-${sub.id}` }
      ).catch((err: unknown) => {
        // Refused for good (the subscription ended or is gone meanwhile): redelivering the event
        // would not help, and its state must still be applied. Other failures are retried.
        if (isRefusal(err)) {
          log.warn({ event: event.id, subscription: sub.id, stripe: { code: err.code, statusCode: err.statusCode } }, 'stripe refused the metadata update')
          return null
        }
        throw err
      }))
    }
    const recorded = await queries.saveSubscription(event, sub, owner)
    const outcome: Outcome = !recorded ? 'duplicate' : stale ? 'ignored' : 'applied'
    if (outcome === 'applied') deps.accountChanges.changed(owner.id)
    return outcome
  }

  async function onCheckoutCompleted (event: WebhookEvent, session: Json): Promise<Outcome> {
    const subscriptionId = idOf(session.subscription)
    if (session.mode !== 'subscription' || !subscriptionId) return ignore(event)
    // The session names the subscription only: its state comes from Stripe, so the user is entitled
    // as soon as Checkout completes, whichever subscription event arrives first.
    const object = isObject(session.subscription) && session.subscription.status
      ? session.subscription
      : await call('subscription retrieve', (s) => s.subscriptions.retrieve(subscriptionId)
        .catch((err: unknown) => { if (isRefusal(err)) return null; throw err }))
    const sub = readSubscription(object, deps.priceId)
    if (!sub) {
      log.warn({ event: event.id, subscription: subscriptionId }, 'checkout completed for a subscription Stripe does not give')
      return ignore(event)
    }
    sub.customerId ??= idOf(session.customer)
    const metadata = metadataOf(session.metadata)
    return applySubscription(event, sub, [metadata.userId, str(session.client_reference_id)])
  }

  /** the event of a delivery whose signature holds; 400 on a bad, missing or stale signature or a body that is not an event */
  function verifiedEvent (rawBody: Buffer, signature: string): { event: WebhookEvent, object: Json } {
    let event: unknown
    try {
      event = stripe.client().webhooks.constructEvent(rawBody, signature, deps.webhookSecret, SIGNATURE_TOLERANCE_S, undefined, now())
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new BadRequest('invalid stripe-signature')
      throw new BadRequest('body is not a Stripe event')
    }
    if (!isObject(event) || !isObject(event.data) || !isObject(event.data.object)) throw new BadRequest('body is not a Stripe event')
    const id = str(event.id)
    const type = str(event.type)
    const created = event.created
    if (!id || !type || typeof created !== 'number' || !Number.isSafeInteger(created)) throw new BadRequest('body is not a Stripe event')
    return { event: { id, type, created }, object: event.data.object }
  }

  /** A webhook delivery: the signature is checked on the raw bytes, then the event is applied once. */
  return async function webhook (rawBody: Buffer, signature: string): Promise<Outcome> {
    const { event, object } = verifiedEvent(rawBody, signature)
    if (await queries.isRecorded(event.id)) return 'duplicate'
    if (event.type === 'checkout.session.completed') return onCheckoutCompleted(event, object)
    if (SUBSCRIPTION_EVENTS.has(event.type)) {
      const sub = readSubscription(object, deps.priceId)
      if (!sub) {
        log.warn({ event: event.id }, 'stripe subscription event without a subscription')
        return ignore(event)
      }
      return applySubscription(event, sub, [])
    }
    return ignore(event)
  }
}
