// The signed-in person's own sessions: list them, end one, end all but this one. Ending
// a session revokes its JWTs on every instance (src/services/sessions/control.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, PARAM_ERRORS, SuccessSchema } from '../../../schemas/common.ts'
import { EndSessionsBodySchema, EndSessionsResultSchema, SessionIdParamsSchema, SessionListSchema } from '../../../schemas/auth.ts'
import { notFound } from '../../errors.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { COOKIE_PATH, SESSION_COOKIE } from '../../plugins/session-cookie.ts'
import { deviceName } from '../../services/sessions/device-name.ts'
import { requestMeta } from '../accounts/normalize.ts'

const tags = ['auth']
const security = [{ bearer: [] }]

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { audit, sessionControl, accessCutOff } = app.services
  app.addHook('onRequest', app.authenticate)
  // only to clear the cookie of a session that ends itself
  await app.register(app.cookieReader)

  app.get('/sessions', {
    schema: { operationId: 'listSessions', tags, security, summary: "The user's live sessions, most recently used first", response: { 200: SessionListSchema, ...errorResponses(401, 403, 429, 500, 503) } }
  }, async (request) => {
    const listed = await sessionControl.listOfUser(request.user.id)
    return {
      items: listed.map((s) => ({
        id: s.publicId,
        createdAt: s.createdAt.toISOString(),
        lastUsedAt: s.lastUsedAt.toISOString(),
        userAgent: s.userAgent,
        device: deviceName(s.userAgent),
        ipPrefix: s.ipPrefix,
        current: s.publicId === request.user.sid
      }))
    }
  })

  app.delete('/sessions/:id', {
    schema: {
      operationId: 'endSession',
      tags, security,
      summary: "End one of the user's sessions (the current one too: that signs out); 404 for an unknown id or another user's",
      params: SessionIdParamsSchema,
      response: { 200: SuccessSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    },
    // ending sessions is a sensitive call (docs/decisions/accounts.md, Fresh authentication)
    config: { freshProof: true, sessionCookie: true }
  }, async (request, reply) => {
    const { id } = request.params
    if (!await sessionControl.endOne(request.user.id, id)) throw notFound('session not found')
    await audit.record(AUDIT.sessionEnd, request.user.id, requestMeta(request))
    if (id === request.user.sid) reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH })
    return { status: 'success' as const }
  })

  app.delete('/sessions', {
    schema: {
      operationId: 'endOtherSessions',
      tags, security,
      summary: 'End every session of the user but the current one',
      description: 'With `{apiKeys: true}`, also revoke every API key of the account and disable every webhook endpoint, ' +
        'on every instance within a second; the answer\'s `revoked` says what went.',
      body: EndSessionsBodySchema,
      response: { 200: EndSessionsResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { freshProof: true },
    // every field is optional, so a DELETE without a body is the defaults
    preValidation: async (request) => { request.body ??= {} }
  }, async (request) => {
    const { id, sid } = request.user
    const meta = requestMeta(request)
    if (await sessionControl.endOthers(id, sid) > 0) await audit.record(AUDIT.sessionEnd, id, meta)
    if (request.body.apiKeys !== true) return { status: 'success' as const }
    const cut = await accessCutOff.now(id, meta)
    return { status: 'success' as const, revoked: { apiKeys: cut.apiKeys.length, webhooks: cut.webhooks } }
  })
}

export default sessionRoutes
