// Shared by the billing tests: the Stripe environment, events as Stripe sends them, and their
// delivery to the webhook signed with the official client's test helper.
import Stripe from 'stripe'
import type { FastifyInstance } from 'fastify'
import type { StripePeer } from '../peers/stripe.ts'

export const WEBHOOK_SECRET = 'whsec_local_test_secret'
export const PRICE_ID = 'price_test_monthly'

export const stripeEnv = (peer: StripePeer): Record<string, string> => ({
  STRIPE_SECRET_KEY: 'sk_test_local',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_ID: PRICE_ID,
  STRIPE_API_URL: peer.url
})

let eventSeq = 0
export const nowS = () => Math.floor(Date.now() / 1000)

/** an event as Stripe posts it; `created` defaults to now */
export function stripeEvent (type: string, object: Record<string, unknown>, created = nowS()) {
  return { id: `evt_local${process.pid}_${++eventSeq}`, object: 'event', api_version: Stripe.API_VERSION, created, type, livemode: false, data: { object } }
}

export interface DeliverOptions {
  secret?: string
  /** Unix seconds of the signature */
  timestamp?: number
  /** change the body after signing it */
  tamper?: (body: string) => string
  /** send this body instead of the event's JSON (signed as it is) */
  rawBody?: string
  contentType?: string
}

export async function deliver (app: FastifyInstance, event: object, opts: DeliverOptions = {}) {
  const payload = opts.rawBody ?? JSON.stringify(event)
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? WEBHOOK_SECRET,
    ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {})
  })
  return app.inject({
    method: 'POST',
    url: '/api/v1/billing/webhook',
    headers: { 'content-type': opts.contentType ?? 'application/json; charset=utf-8', 'stripe-signature': header },
    payload: opts.tamper ? opts.tamper(payload) : payload
  })
}

/** the user's id, from GET /auth/info */
export async function userInfo (app: FastifyInstance, auth: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: '/api/v1/auth/info', headers: auth })
  return res.json()
}
