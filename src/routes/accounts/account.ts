// The signed-in person's account: change the password, delete the account.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { AccountDeleteBodySchema, PasswordChangeBodySchema } from '../../../schemas/auth.ts'
import { Unauthorized } from '../../errors.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { COOKIE_PATH, SESSION_COOKIE } from '../../plugins/session-cookie.ts'
import type { Config } from '../../config.ts'
import { requestMeta } from './normalize.ts'
import { refuseUnproved } from './proof-refusal.ts'

const tags = ['auth']
const security = [{ bearer: [] }]
const MINUTE = 60_000

const accountRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { accountDeletion, passwordChange } = app.services
  app.addHook('onRequest', app.authenticate)
  // only to clear the cookie of a deleted account
  await app.register(app.cookieReader)

  // Guesses at the current password with a stolen token: sign-in's per-address budget and backoff
  // apply through the check itself (src/services/accounts/password-change.ts); this budget is per account.
  const perAccount = app.limiter({ name: 'password-check', max: config.rateLimits.signinEmail, timeWindow: 15 * MINUTE, key: (r) => r.user?.id })

  app.post('/password', {
    schema: {
      operationId: 'changePassword',
      tags, security,
      summary: 'Change the password (ends every other session, mails a notice)',
      body: PasswordChangeBodySchema,
      response: { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { form: true },
    preHandler: perAccount
  }, async (request, reply) => {
    const outcome = await passwordChange.change(request.user.id, request.user.sid, request.body, requestMeta(request))
    if (outcome.status === 'unknown') throw new Unauthorized()
    if (outcome.status === 'locked') {
      reply.header('retry-after', String(outcome.retryAfter))
      throw limitRefused('signin-backoff', 'email')
    }
    return outcome
  })

  app.delete('/account', {
    schema: {
      operationId: 'deleteAccount',
      tags, security,
      summary: 'Delete the account and everything of it (403 when the password or Google credential is refused)',
      description: 'Send `{password}`, or for an account without a password `{clientId, credential}` with a fresh Google ID ' +
        'token of the linked Google account. A running subscription is cancelled at the end of its period.',
      body: AccountDeleteBodySchema,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { sessionCookie: true },
    preHandler: perAccount
  }, async (request, reply) => {
    const outcome = await accountDeletion.remove(request.user.id, request.body ?? {}, requestMeta(request))
    refuseUnproved(outcome, reply)
    reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH })
    return reply.code(204).send(null)
  })
}

export default accountRoutes
