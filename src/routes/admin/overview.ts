// GET /admin/overview: the accounts, reports, report queue, webhook backlog and alert work at a glance
// (docs/operations.md, Support). Staff at level 2, or an API key with `admin:read`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { OverviewSchema } from '../../../schemas/admin.ts'

const adminOverviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { staff } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/overview', {
    config: { staff: 'support', apiKeyScope: 'admin:read' },
    schema: {
      operationId: 'adminOverview', tags: ['admin'], security: [{ bearer: [] }],
      summary: 'Accounts (total, confirmed, disabled, new in 24 h), reports by status and generated in 24 h, the queue, webhook deliveries pending and failed, alerts pending',
      response: { 200: OverviewSchema, ...errorResponses(401, 403, 429, 500, 503) }
    }
  }, async () => await staff.overview.read())
}

export default adminOverviewRoutes
