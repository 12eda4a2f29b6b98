// /webhooks (docs/decisions/programs.md, Webhooks): an account's webhook endpoints, their secrets
// and their delivery log. Bearer (a session's JWT, or an API key with the `webhooks` scope);
// another account's endpoint or delivery is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, PageQuerySchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import {
  CreatedWebhookSchema, CreateWebhookBodySchema, QueuedDeliverySchema, RotatedWebhookSchema, WebhookDeliveryListSchema, WebhookListSchema
} from '../../../schemas/webhooks.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { NOTICE } from '../../services/notices/what.ts'
import { requestMeta } from '../accounts/normalize.ts'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) })
const security = [{ bearer: [] }]
const tags = ['webhooks']

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks, audit, notices } = app.services
  app.addHook('onRequest', app.authenticate)

  app.post('/', {
    config: { apiKeyScope: 'webhooks', freshProof: true, idempotent: true },
    schema: {
      operationId: 'createWebhook', tags, security,
      summary: 'Register an endpoint for events; the signing secret is in this answer only (at most 10 endpoints per account: 409)',
      body: CreateWebhookBodySchema,
      response: { 201: CreatedWebhookSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 422, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const created = await webhooks.create(request.user.id, request.body.url, request.body.events)
    // audited and told to the mailbox by its host alone: a receiver's URL may carry its own secret
    // in a path or query (docs/security.md, Notices)
    const meta = requestMeta(request)
    await audit.record(AUDIT.webhookCreate, request.user.id, meta)
    await notices.send(request.user.id, { what: NOTICE.webhookAdded, details: `It sends events to ${new URL(created.url).host}.`, ...meta })
    // a 201 names what it made (RFC 9110 15.3.2): the endpoint's own path, that DELETE removes
    return reply.code(201).header('location', `${app.prefix}/${created.id}`).send(created)
  })

  app.get('/', {
    config: { apiKeyScope: 'webhooks' },
    schema: {
      operationId: 'listWebhooks', tags, security, summary: 'The account\'s endpoints, oldest first, paged (never their secrets)',
      querystring: PageQuerySchema,
      response: { 200: WebhookListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await webhooks.list(request.user.id, request.query.offset, request.query.limit))

  app.delete('/:id', {
    config: { apiKeyScope: 'webhooks' },
    schema: {
      operationId: 'deleteWebhook', tags, security, summary: 'Delete an endpoint and its delivery log',
      params: IdParams,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    await webhooks.remove(request.user.id, request.params.id)
    return reply.code(204).send(null)
  })

  app.post('/:id/rotate', {
    config: { apiKeyScope: 'webhooks', freshProof: true },
    schema: {
      operationId: 'rotateWebhookSecret', tags, security, summary: 'A new signing secret (in this answer only); for 24 h deliveries carry a signature by the previous one too',
      params: IdParams,
      response: { 200: RotatedWebhookSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => await webhooks.rotate(request.user.id, request.params.id))

  app.post('/:id/test', {
    config: { apiKeyScope: 'webhooks' },
    schema: {
      operationId: 'sendWebhookTest', tags, security,
      summary: 'Send a webhook.test event to the endpoint (409 when it is disabled; at most 5 a minute per endpoint, 429 with Retry-After past that)',
      params: IdParams,
      response: { 202: QueuedDeliverySchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 409, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const queued = await webhooks.test(request.user.id, request.params.id)
    if ('retryAfterS' in queued) {
      reply.header('retry-after', String(queued.retryAfterS))
      throw limitRefused('webhook-tests', 'endpoint')
    }
    return reply.code(202).send(queued)
  })

  app.get('/:id/deliveries', {
    config: { apiKeyScope: 'webhooks' },
    schema: {
      operationId: 'listWebhookDeliveries', tags, security, summary: 'The endpoint\'s deliveries, newest first, paged',
      params: IdParams,
      querystring: PageQuerySchema,
      response: { 200: WebhookDeliveryListSchema, ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => await webhooks.deliveries(request.user.id, request.params.id, request.query.offset, request.query.limit))

  app.post('/:id/deliveries/:deliveryId/retry', {
    config: { apiKeyScope: 'webhooks' },
    schema: {
      operationId: 'retryWebhookDelivery', tags, security, summary: 'Send a failed or pending delivery again now, with the same webhook-id (409 when delivered or the endpoint is disabled)',
      params: DeliveryParams,
      response: { 202: QueuedDeliverySchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 409, 429, 500, 503) }
    }
  }, async (request, reply) => reply.code(202).send(await webhooks.retry(request.user.id, request.params.id, request.params.deliveryId)))
}

export default webhookRoutes
