// Billing with Stripe (DESIGN 7): a Checkout Session for the subscription, the customer portal, and
// the webhook that keeps subscription rows in step with Stripe. No Fastify types here.
//
// The acquisition code travels as metadata (spec 6): on the customer, on the Checkout Session, on the
// subscription it creates, and is put back with subscriptions.update on a subscription that lacks it.
import { randomUUID } from 'node:crypto'
import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import Stripe from 'stripe'
import type { Database } from '../db/client.ts'
import { stripeEvents, subscriptions, users } from '../db/schema.ts'
import { BadRequest, Conflict, ServiceUnavailable, Unauthorized } from '../errors.ts'
import { ENTITLING_STATUSES, FINAL_STATUSES, lifecycleStage, lifecycleStageSql } from './subscription-state.ts'

export interface BillingConfig {
  secretKey: string
  webhookSecret: string
  priceId: string
  /** API base for the client (tests point it at a local server); empty = Stripe's */
  apiUrl: string
}

interface Log {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

export interface BillingDeps {
  database: Database
  config: BillingConfig
  /** origins that Checkout and the portal may send the browser back to */
  allowedOrigins: string[]
  /** where the portal sends the user back when the request names no returnUrl */
  defaultReturnUrl: string
  now?: () => number
  log?: Log
  /** a user's subscription changed here (src/services/accounts.ts drops its view of the account) */
  accountChanges: { changed: (userId: string) => void }
}

type StripeOptions = NonNullable<ConstructorParameters<typeof Stripe>[1]>

/** the client's options: Stripe's API, or STRIPE_API_URL's protocol, host and port */
export function stripeClientOptions (apiUrl: string): StripeOptions {
  // Retries reuse the request's idempotency key, so a retried POST never acts twice.
  const base: StripeOptions = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false }
  if (!apiUrl) return base
  const url = new URL(apiUrl)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  return {
    ...base,
    protocol,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : (protocol === 'http' ? 80 : 443)
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SUBSCRIPTION_EVENTS = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted'])
// Signatures older than this many seconds are refused (Stripe's own default).
const SIGNATURE_TOLERANCE_S = 300

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

/** the fields the service keeps of a Stripe subscription, read defensively (a webhook endpoint may
 *  be pinned to an older API version, where current_period_end is on the subscription itself) */
export interface SubscriptionState {
  id: string
  status: string
  customerId: string | undefined
  metadata: Record<string, string>
  priceId: string | null
  currentPeriodEnd: Date | null
}

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

/** a 4xx answer other than 409 (idempotency conflict) and 429: asking again gets the same answer */
function isRefusal (err: unknown): err is InstanceType<typeof Stripe.errors.StripeError> {
  return err instanceof Stripe.errors.StripeError && typeof err.statusCode === 'number' &&
    err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 409 && err.statusCode !== 429
}

export function createBillingService (deps: BillingDeps) {
  const { config, database } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  const log: Log = deps.log ?? { info: () => {}, warn: () => {}, error: () => {} }
  const configured = Boolean(config.secretKey && config.webhookSecret && config.priceId)
  const stripe = configured ? new Stripe(config.secretKey, stripeClientOptions(config.apiUrl)) : undefined

  function client (): Stripe {
    if (!stripe) throw new ServiceUnavailable('billing is not configured')
    return stripe
  }

  /** a Stripe call; its failure is a 503 for our client, its details only in our log */
  async function call<T> (what: string, fn: (s: Stripe) => Promise<T>): Promise<T> {
    const s = client()
    try {
      return await fn(s)
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError) {
        // type, code, status and request id identify the failure; the message may quote our input
        log.error({ stripe: { type: err.type, code: err.code, statusCode: err.statusCode, requestId: err.requestId } }, `stripe ${what} failed`)
        throw new ServiceUnavailable('payment provider unavailable')
      }
      throw err
    }
  }

  function redirectUrl (field: string, value: string): string {
    let origin: string
    try {
      origin = new URL(value).origin
    } catch {
      throw new BadRequest(`${field} is not a valid URL`)
    }
    if (!deps.allowedOrigins.includes(origin)) throw new BadRequest(`${field} must be on this service's origin`)
    // Stripe gets the string as sent: URL#href would percent-encode {CHECKOUT_SESSION_ID}
    return value
  }

  async function userRow (userId: string) {
    const [user] = await db.select({
      id: users.id, email: users.email, acquisitionCode: users.acquisitionCode, stripeCustomerId: users.stripeCustomerId
    }).from(users).where(eq(users.id, userId))
    if (!user) throw new Unauthorized()
    return user
  }

  type User = Awaited<ReturnType<typeof userRow>>

  /** userId always; acquisition_code only when the user has one (never an empty string) */
  const metadataFor = (user: Pick<User, 'id' | 'acquisitionCode'>): Record<string, string> =>
    user.acquisitionCode ? { userId: user.id, acquisition_code: user.acquisitionCode } : { userId: user.id }

  async function isEntitled (userId: string): Promise<boolean> {
    const rows = await db.select({ id: subscriptions.stripeSubscriptionId }).from(subscriptions)
      .where(and(eq(subscriptions.userId, userId), inArray(subscriptions.status, [...ENTITLING_STATUSES]))).limit(1)
    return rows.length > 0
  }

  /** the user's one Stripe customer, created on first need */
  async function customerOf (user: User): Promise<string> {
    if (user.stripeCustomerId) return user.stripeCustomerId
    // One key per user: two concurrent first checkouts get the same customer back from Stripe.
    const customer = await call('customer create', (s) => s.customers.create(
      { email: user.email, metadata: metadataFor(user) },
      { idempotencyKey: `customer-${user.id}` }
    ))
    const linked = await db.update(users).set({ stripeCustomerId: customer.id })
      .where(and(eq(users.id, user.id), isNull(users.stripeCustomerId))).returning({ id: users.stripeCustomerId })
    if (linked.length) return customer.id
    return (await userRow(user.id)).stripeCustomerId ?? customer.id
  }

  /** the user a Stripe object belongs to: its customer first, then its metadata's userId */
  async function ownerOf (customerId: string | undefined, userIdHints: Array<string | undefined>) {
    const columns = { id: users.id, acquisitionCode: users.acquisitionCode, stripeCustomerId: users.stripeCustomerId }
    if (customerId) {
      const [byCustomer] = await db.select(columns).from(users).where(eq(users.stripeCustomerId, customerId))
      if (byCustomer) return byCustomer
    }
    for (const hint of userIdHints) {
      if (!hint || !UUID.test(hint)) continue
      const [byId] = await db.select(columns).from(users).where(eq(users.id, hint))
      if (byId) return byId
    }
    return undefined
  }

  /** true when this event must not change the stored row: it is older, or the row has ended */
  async function isStale (subscriptionId: string, status: string, created: number): Promise<boolean> {
    const [row] = await db.select({ status: subscriptions.status, eventCreated: subscriptions.eventCreated })
      .from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, subscriptionId))
    if (!row) return false
    if (FINAL_STATUSES.includes(row.status)) return true
    if (row.eventCreated !== created) return row.eventCreated > created
    return lifecycleStage(status) < lifecycleStage(row.status)
  }

  type Outcome = 'applied' | 'duplicate' | 'ignored'

  /** records the event id; false when it was already there (a concurrent redelivery) */
  async function recordEvent (tx: Pick<typeof db, 'insert'>, event: { id: string, type: string }): Promise<boolean> {
    const rows = await tx.insert(stripeEvents).values({ id: event.id, type: event.type, createdAt: new Date(now()) })
      .onConflictDoNothing().returning({ id: stripeEvents.id })
    return rows.length > 0
  }

  async function ignore (event: { id: string, type: string }): Promise<Outcome> {
    return (await recordEvent(db, event)) ? 'ignored' : 'duplicate'
  }

  async function applySubscription (
    event: { id: string, type: string, created: number },
    sub: SubscriptionState,
    userIdHints: Array<string | undefined>
  ): Promise<Outcome> {
    const owner = await ownerOf(sub.customerId, [sub.metadata.userId, ...userIdHints])
    if (!owner) {
      log.warn({ event: event.id, subscription: sub.id }, 'stripe subscription of no known user')
      return ignore(event)
    }
    const stale = await isStale(sub.id, sub.status, event.created)
    // Before the event is recorded: if Stripe fails here the webhook answers 503 and Stripe
    // redelivers; the key (per event) makes the retried update a no-op at Stripe.
    if (!stale && owner.acquisitionCode && sub.metadata.acquisition_code !== owner.acquisitionCode &&
        !FINAL_STATUSES.includes(sub.status)) {
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
    const outcome = await db.transaction(async (tx): Promise<Outcome> => {
      if (!await recordEvent(tx, event)) return 'duplicate'
      if (sub.customerId && !owner.stripeCustomerId) {
        await tx.update(users).set({ stripeCustomerId: sub.customerId })
          .where(and(eq(users.id, owner.id), isNull(users.stripeCustomerId)))
      }
      const fresh = sql`excluded.event_created`
      const stored = sql`${subscriptions.eventCreated}`
      await tx.insert(subscriptions).values({
        stripeSubscriptionId: sub.id,
        userId: owner.id,
        stripeCustomerId: sub.customerId ?? null,
        status: sub.status,
        priceId: sub.priceId,
        currentPeriodEnd: sub.currentPeriodEnd,
        eventCreated: event.created,
        updatedAt: new Date(now())
      }).onConflictDoUpdate({
        target: subscriptions.stripeSubscriptionId,
        set: {
          status: sql`excluded.status`,
          priceId: sql`excluded.price_id`,
          currentPeriodEnd: sql`excluded.current_period_end`,
          stripeCustomerId: sql`coalesce(excluded.stripe_customer_id, ${subscriptions.stripeCustomerId})`,
          eventCreated: fresh,
          updatedAt: sql`excluded.updated_at`
        },
        // the same rule as isStale, in the statement itself, so that concurrent events cannot race
        setWhere: sql`${subscriptions.status} not in ('canceled', 'incomplete_expired') and (${stored} < ${fresh} or
          (${stored} = ${fresh} and ${lifecycleStageSql(sql`excluded.status`)} >= ${lifecycleStageSql(subscriptions.status)}))`
      })
      return stale ? 'ignored' : 'applied'
    })
    if (outcome === 'applied') deps.accountChanges.changed(owner.id)
    return outcome
  }

  async function onCheckoutCompleted (event: { id: string, type: string, created: number }, session: Json): Promise<Outcome> {
    const subscriptionId = idOf(session.subscription)
    if (session.mode !== 'subscription' || !subscriptionId) return ignore(event)
    // The session names the subscription only: its state comes from Stripe, so the user is entitled
    // as soon as Checkout completes, whichever subscription event arrives first.
    const object = isObject(session.subscription) && session.subscription.status
      ? session.subscription
      : await call('subscription retrieve', (s) => s.subscriptions.retrieve(subscriptionId)
        .catch((err: unknown) => { if (isRefusal(err)) return null; throw err }))
    const sub = readSubscription(object, config.priceId)
    if (!sub) {
      log.warn({ event: event.id, subscription: subscriptionId }, 'checkout completed for a subscription Stripe does not give')
      return ignore(event)
    }
    sub.customerId ??= idOf(session.customer)
    const metadata = metadataOf(session.metadata)
    return applySubscription(event, sub, [metadata.userId, str(session.client_reference_id)])
  }

  return {
    /** false without STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID: endpoints answer 503 */
    configured,
    isEntitled,

    async checkout (userId: string, body: { successUrl: string, cancelUrl: string }): Promise<{ url: string }> {
      client()
      const successUrl = redirectUrl('successUrl', body.successUrl)
      const cancelUrl = redirectUrl('cancelUrl', body.cancelUrl)
      const user = await userRow(userId)
      if (await isEntitled(userId)) throw new Conflict('already subscribed: manage the subscription in the customer portal')
      const customer = await customerOf(user)
      const metadata = metadataFor(user)
      const session = await call('checkout session create', (s) => s.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: user.id,
        line_items: [{ price: config.priceId, quantity: 1 }],
        success_url: successUrl,
        cancel_url: cancelUrl,
        metadata,
        subscription_data: { metadata }
      }, { idempotencyKey: `checkout-${randomUUID()}` }))
      if (!session.url) throw new ServiceUnavailable('payment provider unavailable')
      return { url: session.url }
    },

    async portal (userId: string, body: { returnUrl?: string } | undefined): Promise<{ url: string }> {
      client()
      const returnUrl = redirectUrl('returnUrl', body?.returnUrl ?? deps.defaultReturnUrl)
      const user = await userRow(userId)
      if (!user.stripeCustomerId) throw new Conflict('no billing account yet: subscribe first')
      const session = await call('portal session create', (s) => s.billingPortal.sessions.create(
        { customer: user.stripeCustomerId!, return_url: returnUrl },
        { idempotencyKey: `portal-${randomUUID()}` }
      ))
      return { url: session.url }
    },

    /**
     * A webhook delivery: the signature is checked on the raw bytes, then the event is applied once.
     * 400 on a bad, missing or stale signature or a body that is not an event.
     */
    async webhook (rawBody: Buffer, signature: string): Promise<Outcome> {
      const s = client()
      let event: unknown
      try {
        event = s.webhooks.constructEvent(rawBody, signature, config.webhookSecret, SIGNATURE_TOLERANCE_S, undefined, now())
      } catch (err) {
        if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new BadRequest('invalid stripe-signature')
        throw new BadRequest('body is not a Stripe event')
      }
      if (!isObject(event) || !isObject(event.data) || !isObject(event.data.object)) throw new BadRequest('body is not a Stripe event')
      const id = str(event.id)
      const type = str(event.type)
      const created = event.created
      if (!id || !type || typeof created !== 'number' || !Number.isSafeInteger(created)) throw new BadRequest('body is not a Stripe event')
      const e = { id, type, created }

      const [seen] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id))
      if (seen) return 'duplicate'
      const object = event.data.object
      if (type === 'checkout.session.completed') return onCheckoutCompleted(e, object)
      if (SUBSCRIPTION_EVENTS.has(type)) {
        const sub = readSubscription(object, config.priceId)
        if (!sub) {
          log.warn({ event: id }, 'stripe subscription event without a subscription')
          return ignore(e)
        }
        return applySubscription(e, sub, [])
      }
      return ignore(e)
    }
  }
}

export type BillingService = ReturnType<typeof createBillingService>
