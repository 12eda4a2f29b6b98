// GET /admin/audit: the audit log, newest first, filtered by account, staff member, kind and time
// (docs/operations.md, Support). Staff at level 2, or an API key with `admin:read`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { AuditListSchema, AuditQuerySchema } from '../../../schemas/admin.ts'

const adminAuditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { staff } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/audit', {
    config: { staff: 'support', apiKeyScope: 'admin:read' },
    schema: {
      operationId: 'adminListAudit', tags: ['admin'], security: [{ bearer: [] }],
      summary: 'The audit log, newest first: by account (userId), staff member (actorId), kind (`admin.*` for a prefix), from and to',
      querystring: AuditQuerySchema,
      response: { 200: AuditListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await staff.audit.list(request.query))
}

export default adminAuditRoutes
