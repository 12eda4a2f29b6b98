// POST /auth/mfa/verify (docs/decisions/accounts.md, Second factors): a session at level 1 proves
// the second factor with a code of the authenticator app or a recovery code, and moves to level 2.
// Open to a level-1 session (config.beforeSecondFactor), by Bearer JWT or by the session cookie. A
// wrong code is a form error on `code` and counts toward the account's guess budget
// (src/services/accounts/second-factor.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { MfaVerifyBodySchema } from '../../../schemas/mfa.ts'
import { Unauthorized } from '../../errors.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { CODE_MESSAGES, SECOND_FACTOR_LIMITER } from '../../services/accounts/second-factor.ts'
import { requestMeta } from '../accounts/normalize.ts'
import { bearerOrCookie, completeSecondFactor } from './second-factor.ts'
import { passkeySecondFactor } from '../passkeys/second-factor.ts'

const codeError = (message: string) => ({ status: 'error' as const, fieldError: { field: 'code' as const, message } })

const verifyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { secondFactor } = app.services
  await app.register(app.cookieReader)

  app.post('/mfa/verify', {
    schema: {
      operationId: 'verifySecondFactor',
      tags: ['auth'],
      security: [{ bearer: [] }, { cookie: [] }],
      summary: 'Prove the second factor: the session moves from level 1 to level 2',
      description: 'Send `{code}` (the authenticator app\'s 6-digit code; a recovery code is taken here too), `{recoveryCode}`, ' +
        'or `{passkey}` (the answer to POST /auth/passkeys/signin/options of one of the account\'s passkeys; a refused one is a form error on `passkey`). ' +
        'A Bearer JWT or the session cookie. The answer is a new JWT of the same session with `aal: 2`; a wrong code is ' +
        'a form error on `code` and counts toward the account\'s budget of 10 wrong codes per 15 minutes, which no sign-in resets ' +
        '(429 with Retry-After once spent).',
      body: MfaVerifyBodySchema,
      response: { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { form: true, beforeSecondFactor: true },
    onRequest: bearerOrCookie(app)
  }, async (request, reply) => {
    const { code, recoveryCode, passkey } = request.body
    if (passkey !== undefined) return await passkeySecondFactor(app, request, passkey)
    const typed = recoveryCode ?? code
    if (typed === undefined) return codeError(CODE_MESSAGES.missing)
    const outcome = await secondFactor.checkCode(request.user.id, typed, recoveryCode !== undefined ? 'recovery' : 'code', requestMeta(request))
    switch (outcome.status) {
      case 'unknown': throw new Unauthorized()
      case 'missing-proof': return codeError(CODE_MESSAGES.missing)
      case 'refused': return codeError(outcome.message)
      case 'locked':
        reply.header('retry-after', String(outcome.retryAfter))
        throw limitRefused(SECOND_FACTOR_LIMITER, 'user')
    }
    return { status: 'success' as const, token: await completeSecondFactor(app, request) }
  })
}

export default verifyRoutes
