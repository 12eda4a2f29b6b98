// POST /auth/google/nonce: a nonce for the next Google proof of the signed-in person (DELETE
// /auth/account, POST /auth/reauthenticate). The page hands it to Google Identity Services (its
// `nonce` option), and the proof is refused without it (src/services/accounts/owner-proof.ts).
// Sign-in with Google needs none.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses } from '../../../schemas/common.ts'
import { GoogleNonceSchema } from '../../../schemas/auth.ts'

const MINUTE = 60_000
// a page asks for one each time it shows a Google prompt for a proof: room for a person's retries
const NONCES_PER_WINDOW = 30

const googleNonceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { googleNonces } = app.services
  app.addHook('onRequest', app.authenticate)
  const perAccount = app.limiter({ name: 'google-nonce', max: NONCES_PER_WINDOW, timeWindow: 15 * MINUTE, key: (r) => r.user?.id })

  app.post('/google/nonce', {
    schema: {
      operationId: 'issueGoogleNonce',
      tags: ['auth'],
      security: [{ bearer: [] }],
      summary: 'A nonce for the next Google proof of the account\'s owner (used once, for 10 minutes)',
      description: 'Pass it to Google Identity Services (`google.accounts.id.initialize({nonce})`) before asking for the credential ' +
        'that DELETE /auth/account or POST /auth/reauthenticate is sent. Such a credential must also be at most 5 minutes old.',
      response: { 200: GoogleNonceSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    preHandler: perAccount
  }, async (request) => {
    const { nonce, expiresAt } = await googleNonces.issue(request.user.id)
    return { nonce, expiresAt: expiresAt.toISOString() }
  })
}

export default googleNonceRoutes
