// Sign-in with a passkey, without a name (docs/decisions/accounts.md, Passkeys): the options name
// no credential, so the authenticator offers the discoverable passkeys it holds for this site; the
// answer's credential names the account. Success starts a session as the password sign-in does
// (a new id, the cookie always, a JWT when asked), at level 2: the passkey proved both factors. The same options serve a signed-in person's
// passkey as a second factor and as a fresh proof: whichever call checks the answer takes its challenge.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses } from '../../../schemas/common.ts'
import { AssertionOptionsSchema, PasskeySigninBodySchema, PasskeySigninResultSchema } from '../../../schemas/passkeys.ts'
import { ProofRefused } from '../../errors.ts'
import type { Config } from '../../config.ts'
import { clientOf } from '../../plugins/rate-limit.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { PASSKEY_MESSAGES } from '../../services/passkeys/index.ts'
import { MESSAGES } from '../../services/accounts/index.ts'
import { requestMeta } from '../accounts/normalize.ts'
import { startSession } from '../sessions/start.ts'

const tags = ['auth']
const MINUTE = 60_000

const passkeySigninRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { passkeys, audit, accounts } = app.services
  await app.register(app.sessionCookie)
  // each options call stores a challenge, each answer costs a signature check: both under the sign-in's budget per address
  const optionsPerIp = app.limiter({ name: 'passkey-options-ip', max: config.rateLimits.signinIp, timeWindow: MINUTE, key: clientOf })
  const verifyPerIp = app.limiter({ name: 'passkey-signin-ip', max: config.rateLimits.signinIp, timeWindow: MINUTE, key: clientOf })

  app.post('/passkeys/signin/options', {
    schema: {
      operationId: 'passkeySigninOptions',
      security: [], tags,
      summary: 'Begin a passkey sign-in (or a passkey as second factor or fresh proof): the options for navigator.credentials.get()',
      response: { 200: AssertionOptionsSchema, ...errorResponses(...BODY_ERRORS, 429, 500, 503) }
    },
    onRequest: optionsPerIp
  }, async () => await passkeys.assertionOptions())

  app.post('/passkeys/signin/verify', {
    schema: {
      operationId: 'passkeySignin',
      security: [], tags,
      summary: "Sign in with the browser's answer to the passkey options; 403 when the passkey is not accepted",
      body: PasskeySigninBodySchema,
      response: { 200: PasskeySigninResultSchema, ...errorResponses(...BODY_ERRORS, 403, 429, 500, 503) }
    },
    config: { sessionCookie: true },
    onRequest: verifyPerIp
  }, async (request) => {
    const { response, token, remember } = request.body
    const meta = requestMeta(request)
    const outcome = await passkeys.verifyAssertion(response)
    if (!outcome.ok) {
      await audit.record(AUDIT.signinFailure, null, meta)
      throw new ProofRefused(outcome.message)
    }
    // staff disabled the account: said to whoever proved its passkey (403, as every refusal here)
    if (await accounts.disabled(outcome.userId)) {
      await audit.record(AUDIT.signinFailure, outcome.userId, meta)
      throw new ProofRefused(MESSAGES.accountDisabled)
    }
    // a passkey is a second factor as well as the first: the session starts at level 2
    const user = await startSession(request, outcome.userId, { remember, method: 'passkey', credentialVersion: outcome.credentialVersion, aal: 2 })
    if (!user) {
      // the passkey was removed (or another credential changed) between its check and the session
      await audit.record(AUDIT.signinFailure, outcome.userId, meta)
      throw new ProofRefused(PASSKEY_MESSAGES.refused)
    }
    await audit.record(AUDIT.signinSuccess, outcome.userId, meta)
    return token === true ? { status: 'success' as const, token: app.issueToken(user) } : { status: 'success' as const }
  })
}

export default passkeySigninRoutes
