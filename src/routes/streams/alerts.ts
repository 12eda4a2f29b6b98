// GET /sse/alerts (docs/integration.md, Watches and alerts): the user's alerts as text/event-stream,
// authenticated and framed as the report streams are (index.ts), fed by the alert hub
// (src/services/streams/alert-hub.ts). A static path: find-my-way matches it before /sse/{reportId}'s
// parameter, whatever the order of registration.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { AlertStreamSchema } from '../../../schemas/sse.ts'
import { Unauthorized } from '../../errors.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { FULL_RETRY_AFTER_S, lastEventId, respondWithStream } from './respond.ts'

const QuerySchema = Type.Object({
  lastEventId: Type.Optional(Type.String({ maxLength: 32, description: 'Last-Event-ID for clients that cannot set headers' }))
})

const alertStreamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // the session cookie authenticates a browser's EventSource (src/plugins/session-cookie.ts)
  await app.register(app.cookieReader)
  const hub = app.alertHub

  app.get('/alerts', {
    config: { apiKeyScope: 'alerts' },
    exposeHeadRoute: false,
    schema: {
      operationId: 'streamAlerts',
      tags: ['alerts'],
      summary: 'The user\'s alerts as a text/event-stream, one `alert` event each (Bearer, else the session cookie)',
      description: 'Each alert raised for the user, as it commits, with `id: <seq>` (the user\'s own sequence). ' +
        'Without Last-Event-ID the stream starts with the next alert; with it, every alert after that seq first, in order. ' +
        'The service may end it with `event: end` and `data: {"reason": ...}`: "session-ended" or "token-expired" (no id). ' +
        '429 when the user holds SSE_MAX_STREAMS_PER_USER open streams (report and alert streams together) on this instance already.',
      security: [{ bearer: [] }, { cookie: [] }],
      querystring: QuerySchema,
      response: {
        200: AlertStreamSchema,
        ...errorResponses(400, 401, 403, 429, 500, 503)
      }
    },
    onRequest: async (request, reply) => {
      const user = await app.identify(request, reply)
      if (!user) throw new Unauthorized()
      request.user = user
    }
  }, async (request, reply) => {
    const { id: userId, sid, expMs } = request.user
    // no await between this check and prepare(), which counts the stream before its first one
    if (hub.full(userId)) {
      reply.header('retry-after', String(FULL_RETRY_AFTER_S))
      throw limitRefused('sse-streams', 'user')
    }
    const prepared = await hub.prepare(userId, {
      lastEventId: lastEventId(request, request.query.lastEventId),
      owner: { userId, sid, expMs }
    })
    respondWithStream(app, request, reply, prepared)
  })
}

export default alertStreamRoutes
