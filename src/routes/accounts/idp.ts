// Google sign-in: POST /auth/idp with the ID token from Google Identity Services.
// A form endpoint: every failure is the one HTTP 200 answer, whatever went wrong.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { IdpBodySchema } from '../../../schemas/auth.ts'
import { GOOGLE_FAILED } from '../../services/accounts/google.ts'
import { DISABLED_ANSWER } from '../../services/accounts/index.ts'
import { requestMeta } from './normalize.ts'
import { startSession } from '../sessions/start.ts'

const failed = { status: 'error' as const, fieldError: { field: 'email' as const, message: GOOGLE_FAILED } }

const idpRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { accounts, google, googleAccounts, mfa } = app.services
  // a Google sign-in starts a session (src/plugins/session-cookie.ts)
  await app.register(app.sessionCookie)

  app.post('/idp', {
    schema: {
      operationId: 'signInWithGoogle', security: [],
      tags: ['auth'],
      summary: 'Sign in with Google (creates or links the account)',
      body: IdpBodySchema,
      response: { 200: FormResultSchema, ...errorResponses(400, 413, 415, 429, 500, 503) }
    },
    config: { form: true, sessionCookie: true }
  }, async (request) => {
    const { clientId, credential, token, acquisition_code: acquisitionCode } = request.body
    const verified = await google.verify(clientId, credential)
    if (!verified.ok) {
      // The kind of failure only, never the library's message: it quotes the credential (docs/security.md).
      if (verified.reason === 'certificates') request.log.warn({ reason: verified.reason }, 'Google certificates could not be fetched')
      else request.log.info({ reason: verified.reason }, 'Google sign-in refused')
      return failed
    }
    const outcome = await googleAccounts.signin(verified.identity, acquisitionCode, requestMeta(request))
    if (!outcome) {
      request.log.info({ reason: 'account-conflict' }, 'Google sign-in refused')
      return failed
    }
    // staff disabled the account: said to whoever proved its Google identity, as to its password
    if ('disabled' in outcome) return DISABLED_ANSWER
    // an account with a second factor starts at level 1, as with a password
    // (docs/decisions/accounts.md, Second factors)
    const aal = await mfa.signinLevel(outcome.userId)
    const user = await startSession(request, outcome.userId, { method: 'google', credentialVersion: outcome.credentialVersion, aal })
    if (!user) {
      // a credential change (Google unlinked, say) came between reading the account and its session
      request.log.info({ reason: 'credential-changed' }, 'Google sign-in refused')
      await accounts.signinRefused(outcome.userId, requestMeta(request))
      return failed
    }
    const answer = aal === undefined
      ? { status: 'success' as const, isNewUser: outcome.isNewUser }
      : { status: 'success' as const, isNewUser: outcome.isNewUser, mfaRequired: true }
    return token === true ? { ...answer, token: app.issueToken(user) } : answer
  })
}

export default idpRoutes
