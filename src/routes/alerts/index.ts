// /alerts (docs/integration.md, Watches and alerts): the user's alerts, newest first, and marking them
// read. Bearer (a session's JWT, or an API key with the `alerts` scope); another user's alert is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, IdParamsSchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import { AlertListQuerySchema, AlertListSchema, AlertSchema, AlertsReadSchema } from '../../../schemas/alerts.ts'

const security = [{ bearer: [] }]
const tags = ['alerts']

const alertRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { alerts } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/', {
    config: { apiKeyScope: 'alerts' },
    schema: {
      operationId: 'listAlerts', tags, security,
      summary: 'The user\'s alerts, newest first, paged (`unread=true`: the unread ones only), with the unread count',
      querystring: AlertListQuerySchema,
      response: { 200: AlertListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await alerts.list(request.user.id, request.query))

  app.post('/read', {
    config: { apiKeyScope: 'alerts' },
    schema: {
      operationId: 'readAllAlerts', tags, security,
      summary: 'Mark every alert of the user read',
      response: { 200: AlertsReadSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await alerts.markAllRead(request.user.id))

  app.post('/:id/read', {
    config: { apiKeyScope: 'alerts' },
    schema: {
      operationId: 'readAlert', tags, security,
      summary: 'Mark one alert read: the alert, `read` true (reading it again changes nothing)',
      params: IdParamsSchema,
      response: { 200: AlertSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => await alerts.markRead(request.user.id, request.params.id))
}

export default alertRoutes
