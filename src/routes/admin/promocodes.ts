// /admin/promocodes: what `npm run promo` does, for staff (docs/operations.md, Support). Support and
// `admin:read` keys list; admins create and delete, with a fresh proof and a reason, each audited.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, PageQuerySchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import { NewPromocodeBodySchema, PromocodeListSchema, PromocodeParamsSchema, PromocodeSchema, ReasonBodySchema } from '../../../schemas/admin.ts'
import { BadRequest, notFound } from '../../errors.ts'
import { expiryAfter } from '../../services/billing/promocodes.ts'
import { requestMeta } from '../accounts/normalize.ts'

const tags = ['admin']
const security = [{ bearer: [] }]

const adminPromocodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { staff } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/promocodes', {
    config: { staff: 'support', apiKeyScope: 'admin:read' },
    schema: {
      operationId: 'adminListPromocodes', tags, security, summary: 'Every promo code, with its uses',
      querystring: PageQuerySchema,
      response: { 200: PromocodeListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await staff.promocodes.list(request.query.offset, request.query.limit))

  app.post('/promocodes', {
    config: { staff: 'admin', freshProof: true },
    schema: {
      operationId: 'adminCreatePromocode', tags, security, summary: 'Make a promo code (admin only; 409 when the code exists)',
      body: NewPromocodeBodySchema,
      response: { 201: PromocodeSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const { code, maxUses, credits, expires, reason } = request.body
    const expiresAt = expires === undefined ? null : expiryAfter(expires)
    if (expiresAt === null && expires !== undefined) throw new BadRequest('body expires: must be a day, YYYY-MM-DD')
    const created = await staff.promocodes.create({ code, maxUses, credits, expiresAt }, { actorId: request.user.id, meta: requestMeta(request), reason })
    return reply.code(201).header('location', `${app.prefix}/promocodes/${encodeURIComponent(created.code)}`).send(created)
  })

  app.delete('/promocodes/:code', {
    config: { staff: 'admin', freshProof: true },
    schema: {
      operationId: 'adminDeletePromocode', tags, security,
      summary: 'Delete a promo code (admin only): refused from then on; what it gave stays',
      params: PromocodeParamsSchema,
      body: ReasonBodySchema,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const removed = await staff.promocodes.remove(request.params.code, { actorId: request.user.id, meta: requestMeta(request), reason: request.body.reason })
    if (!removed) throw notFound('no such promocode')
    return reply.code(204).send(null)
  })
}

export default adminPromocodeRoutes
