// The staff check (docs/operations.md, Support): a route with `config.staff` ('support' or 'admin',
// the least role that may call it) answers 403 `access denied` to a caller without that role, and 403
// `second factor required` to a staff session that has not proved a second factor (an account without
// one must enrol one first). An API key passes only on a read (GET) of a route that names the
// `admin:read` scope, and only while its owner is staff; a key never writes. The check is a
// preHandler that the onRoute hook adds to those routes alone, ahead of the fresh-proof check, so no
// other route pays for it; it reads the caller's role from the database, which these calls can afford.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { GeneralErrorSchema } from '../../schemas/common.ts'
import { Forbidden, SecondFactorRequired, Unauthorized } from '../errors.ts'
import { RANK, type RoleReader } from '../services/staff/roles.ts'
import { refusedBecause } from './refusal-log.ts'

/** the preHandler of a staff route: throws unless the caller may call it */
export function staffCheck (roles: RoleReader) {
  return async function requireStaff (request: FastifyRequest): Promise<void> {
    const user = request.user as FastifyRequest['user'] | undefined
    if (!user) throw new Unauthorized()
    const need = request.routeOptions.config.staff
    if (need === undefined) return
    const role = await roles.roleOf(user.id)
    if (role === null || RANK[role] < RANK[need]) throw refusedBecause(new Forbidden(), 'staff role')
    if (user.apiKey !== undefined) {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw refusedBecause(new Forbidden(), 'a key never writes at /admin')
      return
    }
    if (user.aal !== 2) throw refusedBecause(new SecondFactorRequired(), 'staff without a second factor')
  }
}

async function staffPlugin (app: FastifyInstance) {
  const check: preHandlerAsyncHookHandler = staffCheck(app.services.roles)
  app.addHook('onRoute', (route) => {
    if (route.config?.staff === undefined) return
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    // first, ahead of the fresh-proof check: a person who is not staff learns nothing else
    route.preHandler = [check, ...own]
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (response && !response[403]) route.schema = { ...route.schema, response: { ...response, 403: GeneralErrorSchema } }
  })
}

export default fp(staffPlugin, { name: 'staff', dependencies: ['fresh-proof', 'services'] })
