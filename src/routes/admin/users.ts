// /admin/users: staff find accounts by a part of their address, open one, and (admins) change its
// role (docs/operations.md, Support). Every route needs a staff role at level 2 (src/plugins/staff.ts);
// the reads also take an API key with `admin:read`, the role change a fresh proof of the admin.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import {
  AdminUserDetailSchema, AdminUserListSchema, AdminUserParamsSchema, AdminUserQuerySchema, AdminUserSchema, RoleBodySchema
} from '../../../schemas/admin.ts'
import { Conflict, notFound } from '../../errors.ts'
import { requestMeta } from '../accounts/normalize.ts'

const tags = ['admin']
const security = [{ bearer: [] }]

const adminUserRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { staff, notices } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/users', {
    config: { staff: 'support', apiKeyScope: 'admin:read' },
    schema: {
      operationId: 'adminListUsers', tags, security,
      summary: 'Accounts, newest first: `q` finds a part of the address in any case, `email` the whole address; `status` keeps one state',
      querystring: AdminUserQuerySchema,
      response: { 200: AdminUserListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await staff.users.list(request.query))

  app.get('/users/:id', {
    config: { staff: 'support', apiKeyScope: 'admin:read' },
    schema: {
      operationId: 'adminGetUser', tags, security,
      summary: 'An account\'s page: its sessions, API keys, webhook endpoints, counts and acquisition code',
      params: AdminUserParamsSchema,
      response: { 200: AdminUserDetailSchema, ...errorResponses(...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => {
    const user = await staff.users.detail(request.params.id)
    if (!user) throw notFound('no such account')
    return user
  })

  app.put('/users/:id/role', {
    config: { staff: 'admin', freshProof: true },
    schema: {
      operationId: 'adminSetRole', tags, security,
      summary: 'Give an account a role (admin only; 409 for your own role or the last admin\'s); the holder gets a notice',
      params: AdminUserParamsSchema,
      body: RoleBodySchema,
      response: { 200: AdminUserSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 409, 429, 500, 503) }
    }
  }, async (request) => {
    const { id } = request.params
    const { role, reason } = request.body
    const meta = requestMeta(request)
    const change = await staff.roles.set(id, role, { actorId: request.user.id, meta, reason })
    if (change.outcome === 'unknown') throw notFound('no such account')
    if (change.outcome === 'self') throw new Conflict('an admin cannot change their own role')
    if (change.outcome === 'last-admin') throw new Conflict('this is the last admin: make another admin first')
    if (change.outcome === 'changed') {
      await notices.send(id, { what: `Your role was changed from ${change.from} to ${change.to}`, ip: meta.ip, userAgent: meta.userAgent, byStaff: { reason } })
    }
    const user = await staff.users.item(id)
    if (!user) throw notFound('no such account')
    return user
  })
}

export default adminUserRoutes
