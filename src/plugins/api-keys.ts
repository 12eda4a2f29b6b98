// API keys on Bearer requests (docs/decisions/programs.md, API keys): the key authenticator
// src/plugins/jwt.ts hands every `Bearer pir_...` credential to. A key is resolved through the
// in-memory view of src/services/api-keys/view.ts (refused: 401, as a bad JWT, so the
// failed-authentication budget counts it), then counted against its own budget (RATE_LIMIT_API_KEY
// a minute; every answer from here on carries RateLimit-* headers), then the route must name one of
// the key's scopes in its `config.apiKeyScope` (src/plugins/route-config.ts): a route that names
// none refuses every key, 403. The request acts as the key's owner (request.user.id), and its
// session id is the key's id, so the SSE hub ends its streams when the key is revoked, as it does a
// session's.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ScopeMissing } from '../errors.ts'
import type { AuthUser } from './jwt.ts'
import { refusedBecause } from './refusal-log.ts'

async function apiKeysPlugin (app: FastifyInstance) {
  const { apiKeys } = app.services
  const limit = app.apiKeyLimit
  // however this instance learns a key was revoked (here, a NOTIFY, a reconcile), the view drops it
  app.sessions.onEnded(apiKeys.forget)
  app.addHook('preClose', async () => { await apiKeys.settled() })

  app.acceptApiKeys(async (request: FastifyRequest, reply: FastifyReply, key: string): Promise<AuthUser | null> => {
    let holder = apiKeys.known(key)
    if (holder === undefined) {
      // an address past its budget of failed authentications is refused before the lookup
      app.refuseSpentAuthFailures(request, reply)
      holder = await apiKeys.load(key)
    }
    if (holder === null) return null
    const user: AuthUser = { id: holder.userId, sid: holder.id, expMs: holder.expMs, apiKey: holder }
    request.user = user
    await limit(request, reply)
    const scope = request.routeOptions.config.apiKeyScope
    if (scope === undefined || !holder.scopes.includes(scope)) throw refusedBecause(new ScopeMissing(), 'key scope')
    return user
  })
}

export default fp(apiKeysPlugin, { name: 'api-keys', dependencies: ['jwt', 'rate-limit', 'auth-failures', 'services', 'sessions'] })
