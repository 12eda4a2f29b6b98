// Watches (docs/integration.md, Watches and alerts): POST and DELETE /report/{id}/watch, GET /watches.
// Bearer (a session's JWT, or an API key with the `alerts` scope); a report follows the /report
// routes' rule: 404 unknown, 403 another user's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, IdParamsSchema, PageQuerySchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import { WatchListSchema, WatchSchema } from '../../../schemas/alerts.ts'

const security = [{ bearer: [] }]
const tags = ['alerts']

const watchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { watches } = app.services
  app.addHook('onRequest', app.authenticate)

  app.post('/report/:id/watch', {
    config: { apiKeyScope: 'alerts', idempotent: true },
    schema: {
      operationId: 'watchReport', tags, security,
      summary: 'Watch a ready report: 201 the new watch, 200 the watch it has already (409 not ready, 402 past the watch limit)',
      params: IdParamsSchema,
      response: { 200: WatchSchema, 201: WatchSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 402, 403, 404, 409, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const { watch, created } = await watches.create(request.user.id, request.params.id)
    // a 201 names what it made (RFC 9110 15.3.2): the watch's path, this one
    if (created) reply.header('location', `${app.prefix}/report/${request.params.id}/watch`)
    return reply.code(created ? 201 : 200).send(watch)
  })

  app.delete('/report/:id/watch', {
    config: { apiKeyScope: 'alerts' },
    schema: {
      operationId: 'unwatchReport', tags, security,
      summary: 'Stop watching a report (404 when it is not watched); its alerts stay',
      params: IdParamsSchema,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    await watches.remove(request.user.id, request.params.id)
    return reply.code(204).send(null)
  })

  app.get('/watches', {
    config: { apiKeyScope: 'alerts' },
    schema: {
      operationId: 'listWatches', tags, security,
      summary: 'The user\'s watches, newest first, paged, with the number the user may hold now',
      querystring: PageQuerySchema,
      response: { 200: WatchListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await watches.list(request.user.id, request.query.offset, request.query.limit))
}

export default watchRoutes
