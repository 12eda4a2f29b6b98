// Billing with Stripe: a Checkout Session for the subscription, the customer portal, and the webhook
// that keeps subscription rows in step with Stripe. The parts: the Stripe client (stripe.ts),
// the webhook (webhook.ts), the queries (queries.ts) and the subscription rules
// (subscription-state.ts). No Fastify types here.
//
// The acquisition code travels as metadata: on the customer, on the Checkout Session and on the
// subscription it creates; the webhook puts it back on a subscription that lacks it.
import { randomUUID } from 'node:crypto'
import type { Database } from '../../db/client.ts'
import { BadRequest, Conflict, ServiceUnavailable } from '../../errors.ts'
import { billingQueries } from './queries.ts'
import { createStripeClient, type BillingConfig, type BillingLog } from './stripe.ts'
import { createWebhookHandler } from './webhook.ts'

export type { BillingConfig } from './stripe.ts'

export interface BillingDeps {
  database: Database
  config: BillingConfig
  /** origins that Checkout and the portal may send the browser back to */
  allowedOrigins: string[]
  /** where the portal sends the user back when the request names no returnUrl */
  defaultReturnUrl: string
  now?: () => number
  log?: BillingLog
  /** a user's subscription changed here (src/services/accounts/index.ts drops its view of the account) */
  accountChanges: { changed: (userId: string) => void }
}

export function createBillingService (deps: BillingDeps) {
  const { config } = deps
  const now = deps.now ?? Date.now
  const log: BillingLog = deps.log ?? { info: () => {}, warn: () => {}, error: () => {} }
  const stripe = createStripeClient(config, log)
  const { call } = stripe
  const queries = billingQueries(deps.database.db, now)
  const webhook = createWebhookHandler({
    stripe, queries, webhookSecret: config.webhookSecret, priceId: config.priceId, now, log, accountChanges: deps.accountChanges
  })

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

  type User = Awaited<ReturnType<typeof queries.userRow>>

  /** userId always; acquisition_code only when the user has one (never an empty string) */
  const metadataFor = (user: Pick<User, 'id' | 'acquisitionCode'>): Record<string, string> =>
    user.acquisitionCode ? { userId: user.id, acquisition_code: user.acquisitionCode } : { userId: user.id }

  /** the user's one Stripe customer, created on first need */
  async function customerOf (user: User): Promise<string> {
    if (user.stripeCustomerId) return user.stripeCustomerId
    // One key per user: two concurrent first checkouts get the same customer back from Stripe.
    const customer = await call('customer create', (s) => s.customers.create(
      { email: user.email, metadata: metadataFor(user) },
      { idempotencyKey: `customer-${user.id}` }
    ))
    return await queries.linkCustomer(user.id, customer.id)
  }

  return {
    /** false without STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID: endpoints answer 503 */
    configured: stripe.configured,
    isEntitled: queries.isEntitled,

    async checkout (userId: string, body: { successUrl: string, cancelUrl: string }): Promise<{ url: string }> {
      stripe.client()
      const successUrl = redirectUrl('successUrl', body.successUrl)
      const cancelUrl = redirectUrl('cancelUrl', body.cancelUrl)
      const user = await queries.userRow(userId)
      if (await queries.isEntitled(userId)) throw new Conflict('already subscribed: manage the subscription in the customer portal')
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
      stripe.client()
      const returnUrl = redirectUrl('returnUrl', body?.returnUrl ?? deps.defaultReturnUrl)
      const user = await queries.userRow(userId)
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
    webhook
  }
}

export type BillingService = ReturnType<typeof createBillingService>
