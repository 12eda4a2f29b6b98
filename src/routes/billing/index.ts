// /billing: Checkout and the customer portal for the signed-in user (Bearer), and the
// webhook Stripe calls (public, authenticated by its signature). Without STRIPE_SECRET_KEY,
// STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID every route answers 503 `billing is not configured`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import {
  BillingUrlSchema, CheckoutBodySchema, PortalBodySchema, WebhookHeadersSchema, WebhookResultSchema
} from '../../../schemas/billing.ts'
import { ServiceUnavailable } from '../../errors.ts'

const tags = ['billing']
const security = [{ bearer: [] }]

const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { billing } = app.services

  // Before authentication and body parsing: an unconfigured service says so to everyone.
  app.addHook('onRequest', async () => {
    if (!billing.configured) throw new ServiceUnavailable('billing is not configured')
  })

  // The signature covers the exact bytes Stripe sent, so this scope (and only this one) keeps the
  // body raw, whatever its content type; the billing service parses it after the check.
  const webhookRoutes: FastifyPluginAsyncTypebox = async (webhook) => {
    webhook.removeAllContentTypeParsers()
    webhook.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    webhook.post('/webhook', {
      schema: {
        operationId: 'receiveStripeWebhook', security: [],
        tags,
        summary: 'Stripe webhook (signed with STRIPE_WEBHOOK_SECRET)',
        description: 'Handles checkout.session.completed and customer.subscription.created|updated|deleted; ' +
          'other events are acknowledged. A redelivered event changes nothing.',
        headers: WebhookHeadersSchema,
        response: { 200: WebhookResultSchema, ...errorResponses(400, 413, 429, 500, 503) }
      }
    }, async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      await billing.webhook(raw, request.headers['stripe-signature'])
      return { received: true as const }
    })
  }

  const userRoutes: FastifyPluginAsyncTypebox = async (user) => {
    user.addHook('onRequest', app.authenticate)

    user.post('/checkout', {
      schema: {
        operationId: 'createCheckoutSession',
        tags,
        security,
        summary: 'Start a subscription: the URL of a Stripe Checkout Session',
        body: CheckoutBodySchema,
        response: { 200: BillingUrlSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503) }
      }
    }, async (request) => billing.checkout(request.user.id, request.body))

    user.post('/portal', {
      schema: {
        operationId: 'createPortalSession',
        tags,
        security,
        summary: 'Manage the subscription: the URL of the Stripe customer portal',
        body: PortalBodySchema,
        response: { 200: BillingUrlSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503) }
      },
      // every field is optional, so a POST without a body is the defaults
      preValidation: async (request) => { request.body ??= {} }
    }, async (request) => billing.portal(request.user.id, request.body))
  }

  await app.register(webhookRoutes)
  await app.register(userRoutes)
}

export default billingRoutes
