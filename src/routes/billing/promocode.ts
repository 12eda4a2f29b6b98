// POST /billing/promocode (Bearer): a signed-in account redeems a promo code for report
// credits, once per code. A form endpoint like sign-up: every refusal (unknown, expired, used up,
// already redeemed by this account) is the one sign-up message on `promocode`, so the answer tells
// nothing about which codes exist. Not behind the billing scope's 503: promo codes need no Stripe.
// A limit per account keeps anyone from trying codes until one works.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { PromocodeBodySchema } from '../../../schemas/billing.ts'
import type { Config } from '../../config.ts'
import { PROMO_MESSAGE } from '../../services/accounts/form-errors.ts'

const HOUR = 3600_000

const promocodeRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { promocodes } = app.services
  app.addHook('onRequest', app.authenticate)
  const perUser = app.limiter({ name: 'promocode-user', max: config.rateLimits.promocodeUser, timeWindow: HOUR, key: (r) => r.user?.id })

  app.post('/promocode', {
    schema: {
      operationId: 'redeemPromocode',
      tags: ['billing'],
      security: [{ bearer: [] }],
      summary: 'Redeem a promo code: its report credits, once per account',
      body: PromocodeBodySchema,
      response: { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { form: true },
    preHandler: perUser
  }, async (request) => {
    const userId = request.user.id
    const credits = await promocodes.redeem(userId, request.body.promocode)
    if (credits === null) return { status: 'error' as const, fieldError: { field: 'promocode' as const, message: PROMO_MESSAGE } }
    // this process's view of the account; other instances hear it from the users row's trigger
    app.accountChanges.changed(userId)
    return { status: 'success' as const }
  })
}

export default promocodeRoutes
