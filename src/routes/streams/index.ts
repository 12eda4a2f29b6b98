// GET /sse/{reportId} (docs/architecture.md, An event from ingest to stream): a report's events as text/event-stream. Authenticated by Bearer,
// else by the session cookie (a browser EventSource cannot send headers); every refusal is an
// ordinary GeneralError answer, before any stream byte. The stream itself is written by hand, on the
// connection (HTTP/1.1) or the raw response (HTTP/2), src/routes/streams/stream.ts; the hub decides what
// each client is sent.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { SseStreamSchema, type SseStatusData } from '../../../schemas/sse.ts'
import { Unauthorized } from '../../errors.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { FULL_RETRY_AFTER_S, lastEventId, respondWithStream } from './respond.ts'

const ParamsSchema = Type.Object({ reportId: Type.String({ maxLength: 64 }) })
const QuerySchema = Type.Object({
  lastEventId: Type.Optional(Type.String({ maxLength: 32, description: 'Last-Event-ID for clients that cannot set headers' }))
})

const sseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // the session cookie authenticates a browser's EventSource (src/plugins/session-cookie.ts)
  await app.register(app.cookieReader)
  const { reports } = app.services
  const hub = app.sseHub

  app.get('/:reportId', {
    config: { apiKeyScope: 'reports:read' },
    exposeHeadRoute: false,
    schema: {
      operationId: 'streamReportEvents',
      tags: ['reports'],
      summary: 'The report\'s status, done and end events as a text/event-stream (Bearer, else the session cookie)',
      description: 'On connect the current state (or, with Last-Event-ID, every event after it), then each change; ' +
        '`event: done` ends the stream. The service may end it earlier with `event: end` and `data: {"reason": ...}`: ' +
        '"session-ended" (signed out, or the session was ended elsewhere), "report-deleted", or "token-expired" ' +
        '(the Bearer token expired: reconnect with a fresh one). The end event has no id. ' +
        '204 when the report is over and the client has its last event; 429 when the user holds ' +
        'SSE_MAX_STREAMS_PER_USER open streams on this instance already. ' +
        'A page on another origin (CORS_ORIGINS) reads it with fetch and a Bearer header: the session cookie is SameSite=Lax.',
      security: [{ bearer: [] }, { cookie: [] }],
      params: ParamsSchema,
      querystring: QuerySchema,
      response: {
        200: SseStreamSchema,
        204: Type.Null({ description: 'the report is over and the client has its last event' }),
        ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503)
      }
    },
    onRequest: async (request, reply) => {
      const user = await app.identify(request, reply)
      if (!user) throw new Unauthorized()
      // the global rate limit then counts this user's budget, not the address's
      request.user = user
    }
  }, async (request, reply) => {
    const report = await reports.owned(request.user.id, request.params.reportId)
    const { id: userId, sid, expMs } = request.user
    // no await between this check and prepare(), which counts the stream before its first one
    if (hub.full(userId)) {
      reply.header('retry-after', String(FULL_RETRY_AFTER_S))
      throw limitRefused('sse-streams', 'user')
    }
    const initial: SseStatusData = { reportId: report.id, status: report.status, progress: report.progress, stage: null }
    const prepared = await hub.prepare(report.id, {
      lastEventId: lastEventId(request, request.query.lastEventId),
      initial,
      owner: { userId, sid, expMs }
    })
    if (prepared.noContent) return reply.code(204).send(null)

    respondWithStream(app, request, reply, prepared)
  })
}

export default sseRoutes
