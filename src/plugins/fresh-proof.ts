// Fresh authentication (docs/decisions/accounts.md, Fresh authentication): a route with
// `config.freshProof` answers 403 `re-authentication required` unless the person's session proved
// its owner (sign-in, POST /auth/reauthenticate) within STEP_UP_MAX_AGE_S. The check is a
// preHandler added by the onRoute hook to those routes only, after the route's own authentication
// has set request.user; it reads the session's proved_at from the database, which these rare calls
// can afford. An API key's request passes: the key was made under a fresh proof, and its scopes
// were granted for exactly such calls.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { GeneralErrorSchema } from '../../schemas/common.ts'
import { ReauthenticationRequired, Unauthorized } from '../errors.ts'
import type { SessionService } from '../services/sessions/store.ts'

export interface FreshProofOptions {
  /** STEP_UP_MAX_AGE_S */
  maxAgeS: number
  now?: () => number
}

/** the preHandler of a freshProof route: throws unless the request's session proved its owner within maxAgeS */
export function freshProofCheck (sessions: Pick<SessionService, 'provedAt'>, opts: FreshProofOptions) {
  const now = opts.now ?? Date.now
  const maxAgeMs = opts.maxAgeS * 1000
  return async function requireFreshProof (request: FastifyRequest): Promise<void> {
    const user = request.user as FastifyRequest['user'] | undefined
    if (!user) throw new Unauthorized()
    if (user.apiKey !== undefined) return
    const provedAt = await sessions.provedAt(user.sid)
    // no live row: the session ended or expired after its token was checked
    if (provedAt === null) throw new Unauthorized()
    if (now() - provedAt > maxAgeMs) throw new ReauthenticationRequired()
  }
}

async function freshProofPlugin (app: FastifyInstance, opts: FreshProofOptions) {
  const check: preHandlerAsyncHookHandler = freshProofCheck(app.sessions, opts)
  app.addHook('onRoute', (route) => {
    if (route.config?.freshProof !== true) return
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    // first: a stale session spends none of the route's budgets
    route.preHandler = [check, ...own]
    // the answer is in the route's schema, hence in the OpenAPI document
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (response && !response[403]) route.schema = { ...route.schema, response: { ...response, 403: GeneralErrorSchema } }
  })
}

export default fp(freshProofPlugin, { name: 'fresh-proof', dependencies: ['sessions'] })
