// POST /auth/reauthenticate (docs/decisions/accounts.md, Fresh authentication): the signed-in
// person proves once more that they own the account, with the password, a second factor's code
// (TOTP or a recovery code), a passkey or a Google credential, and the session's
// proof is renewed for the sensitive calls (config.freshProof, src/plugins/fresh-proof.ts). The
// proof is DELETE /auth/account's (src/services/accounts/owner-proof.ts): the same answers, and a
// wrong password counts toward the sign-in backoff. A Bearer JWT or the session cookie; a cookie
// call must come from our own origin. An API key is never accepted here (the route has no
// apiKeyScope).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses } from '../../../schemas/common.ts'
import { ReauthenticateBodySchema, ReauthenticatedSchema } from '../../../schemas/auth.ts'
import { Unauthorized } from '../../errors.ts'
import { bearerOrCookie } from '../mfa/second-factor.ts'
import type { Config } from '../../config.ts'
import { requestMeta } from './normalize.ts'
import { refuseUnproved } from './proof-refusal.ts'

const MINUTE = 60_000

const reauthenticateRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { ownerProof } = app.services
  await app.register(app.cookieReader)
  // a credential sent without clientId was issued to the one Google client, when one is configured
  const soleClientId = config.google.clientIds.length === 1 ? config.google.clientIds[0] : undefined

  // guesses at the password with a stolen token or cookie: the sign-in backoff applies through the
  // check itself; this budget is per account, as DELETE /auth/account's
  const perAccount = app.limiter({ name: 'reauthenticate', max: config.rateLimits.signinEmail, timeWindow: 15 * MINUTE, key: (r) => r.user?.id })

  app.post('/reauthenticate', {
    schema: {
      operationId: 'reauthenticate',
      tags: ['auth'],
      security: [{ bearer: [] }, { cookie: [] }],
      summary: "Prove the account's owner again: the session may make sensitive calls for STEP_UP_MAX_AGE_S",
      description: 'Send `{password}`, `{code}` (a code of the authenticator app, or a recovery code), `{passkey}` (the answer ' +
        'to POST /auth/passkeys/signin/options of one of the account\'s passkeys), or `{credential}` ' +
        '(and `clientId` when several Google clients are configured) with a ' +
        'fresh Google ID token of the linked Google account. A Bearer JWT or the session cookie. The answer is a new JWT of the same session.',
      body: ReauthenticateBodySchema,
      response: { 200: ReauthenticatedSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    onRequest: bearerOrCookie(app),
    preHandler: perAccount
  }, async (request, reply) => {
    const { password, code, passkey, credential, clientId } = request.body
    const proof = { password, code, passkey, credential, clientId: clientId ?? (credential === undefined ? undefined : soleClientId) }
    const { outcome } = await ownerProof.ofUser(request.user.id, proof, requestMeta(request))
    refuseUnproved(outcome, reply)
    // the session may have ended while the proof was checked
    if (!await app.sessions.proved(request.user.sid)) throw new Unauthorized()
    // the token keeps the session's level
    return { status: 'success' as const, token: app.issueToken({ id: request.user.id, sid: request.user.sid, aal: request.user.aal }) }
  })
}

export default reauthenticateRoutes
