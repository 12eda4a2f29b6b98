// Password recovery: ask for a link, check it, set a new password with it.
// Form endpoints (docs/architecture.md, HTTP contract): no answer carries a token or a cookie, since recovery never signs in.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import { RecoveryBodySchema, RecoveryHashParamsSchema, RecoveryPasswordBodySchema, RecoveryResultSchema } from '../../../schemas/auth.ts'
import type { Config } from '../../config.ts'
import { clientOf } from '../../plugins/rate-limit.ts'
import { normalizeEmail, requestMeta } from './normalize.ts'

const HOUR = 3600_000
const formResponses = { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 429, 500, 503) }
// the link's secret is a path parameter (GET reads no body)
const linkResponses = { 200: FormResultSchema, ...errorResponses(...PARAM_ERRORS, 429, 500, 503) }

const recoveryRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { recovery } = app.services
  const limits = config.rateLimits

  const perIp = app.limiter({ name: 'recovery-ip', max: limits.recoveryIp, timeWindow: HOUR, key: clientOf })
  const perEmail = app.limiter({
    name: 'recovery-email', max: limits.recoveryEmail, timeWindow: HOUR, key: (r) => (r.body as { email: string }).email, keyKind: 'email'
  })

  app.post('/recovery', {
    schema: {
      operationId: 'requestPasswordRecovery', security: [],
      tags: ['auth'],
      summary: 'Mail a password recovery link (the same answer whether or not the address is registered)',
      body: RecoveryBodySchema,
      response: formResponses
    },
    config: { form: true },
    onRequest: perIp,
    preValidation: normalizeEmail,
    preHandler: perEmail
  }, async (request) => {
    await recovery.request(request.body.email)
    return { status: 'success' as const }
  })

  app.get('/recovery/:hash', {
    schema: {
      operationId: 'checkPasswordRecovery', security: [],
      tags: ['auth'],
      summary: 'Whether a recovery link is still valid',
      params: RecoveryHashParamsSchema,
      response: linkResponses
    },
    config: { form: true }
  }, async (request) => await recovery.check(request.params.hash))

  app.post('/recovery/:hash', {
    schema: {
      operationId: 'recoverPassword', security: [],
      tags: ['auth'],
      summary: 'Set a new password with a recovery link (no sign-in: every session of the account ends)',
      description: 'Unless `keepApiKeys` is true, the reset also revokes every API key of the account and disables every webhook ' +
        'endpoint, on every instance within a second; the answer\'s `revoked` says what went.',
      params: RecoveryHashParamsSchema,
      body: RecoveryPasswordBodySchema,
      response: { ...formResponses, ...linkResponses, 200: RecoveryResultSchema }
    },
    config: { form: true }
  }, async (request) => {
    const { password, keepApiKeys } = request.body
    const outcome = await recovery.reset(request.params.hash, password, requestMeta(request), keepApiKeys === true)
    if (outcome.status === 'error') return outcome
    return { status: 'success' as const, revoked: { apiKeys: outcome.revoked.apiKeys.length, webhooks: outcome.revoked.webhooks } }
  })
}

export default recoveryRoutes
