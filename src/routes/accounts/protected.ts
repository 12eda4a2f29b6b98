// The Bearer half of /auth: sign-out, account information, confirmation resend, Google unlinking.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, SuccessSchema } from '../../../schemas/common.ts'
import { AuthInfoSchema } from '../../../schemas/auth.ts'
import { Conflict, Unauthorized } from '../../errors.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { COOKIE_PATH, SESSION_COOKIE } from '../../plugins/session-cookie.ts'
import { requestMeta } from './normalize.ts'

const protectedAuthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { accounts, audit, googleAccounts } = app.services
  app.addHook('onRequest', app.authenticate)

  // Sign-out also ends the session of a cookie sent with it: the one route here that reads the
  // cookie, in a scope of its own (src/plugins/session-cookie.ts).
  await app.register(async (withCookie) => {
    await withCookie.register(app.sessionCookie)
    withCookie.post('/signout', {
      schema: { operationId: 'signOut', tags: ['auth'], summary: 'End the session', security: [{ bearer: [] }], response: { 200: SuccessSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) } },
      // signing out never needs the second factor
      config: { sessionCookie: true, beforeSecondFactor: true }
    }, async (request, reply) => {
      await app.sessions.endByPublicId(request.user.sid)
      if (request.session?.userId) await request.session.destroy()
      reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH })
      await audit.record(AUDIT.signout, request.user.id, requestMeta(request))
      return { status: 'success' as const }
    })
  })

  // The answer is serialized once per state of the account: accounts.info() gives the same object
  // until the account changes (src/services/caches/view-cache.ts), and its JSON is kept beside it, made by
  // the route's own serializer. A client polling its account costs no serialization.
  const bodies = new WeakMap<object, string>()
  app.get('/info', {
    schema: { operationId: 'getAuthInfo', tags: ['auth'], summary: 'The current user', security: [{ bearer: [] }], response: { 200: AuthInfoSchema, ...errorResponses(401, 403, 429, 500, 503) } },
    // a level-1 session learns which second factors it can prove
    config: { beforeSecondFactor: true }
  }, async (request, reply) => {
    const info = await accounts.info(request.user.id)
    if (!info) throw new Unauthorized()
    let body = bodies.get(info)
    if (body === undefined) {
      body = reply.serialize(info) as string
      bodies.set(info, body)
    }
    return reply.type('application/json; charset=utf-8').send(body as never)
  })

  app.delete('/idp', {
    schema: { operationId: 'unlinkGoogle', tags: ['auth'], summary: 'Unlink the Google account', security: [{ bearer: [] }], response: { 200: SuccessSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) } },
    // a sensitive call (docs/decisions/accounts.md, Fresh authentication)
    config: { freshProof: true }
  }, async (request) => {
    const outcome = await googleAccounts.unlink(request.user.id, request.user.sid, requestMeta(request))
    if (outcome === 'unknown') throw new Unauthorized()
    // Without a password, unlinking would lock the owner out of the account.
    if (outcome === 'no-password') throw new Conflict('set a password before unlinking')
    return { status: 'success' as const }
  })

  // RATE_LIMIT_RESEND an hour per account, besides the global budget: each one mails an address
  app.post('/confirm/resend', {
    schema: { operationId: 'resendConfirmation', tags: ['auth'], summary: 'Mail a new confirmation link', security: [{ bearer: [] }], response: { 200: SuccessSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) } },
    preHandler: app.resendLimit
  }, async (request) => {
    await accounts.resendConfirmation(request.user.id)
    return { status: 'success' as const }
  })
}

export default protectedAuthRoutes
