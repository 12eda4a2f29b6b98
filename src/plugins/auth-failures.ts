// The budget of failed authentications (docs/decisions/limits.md, Rate limits):
// RATE_LIMIT_AUTH_FAILURES_IP 401s per client address per 15 minutes, counted on the rate limits'
// store (Redis when REDIS_URL is set). Once spent, the address is refused 429 before its
// credentials are looked up in the database and before any handler runs.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { statusMessages, statusReasons } from '../errors.ts'
import { clientOf, refusalHeaders } from './rate-limit.ts'
import { limitRefused, logLimitRefused } from './refusal-log.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** throws 429 when the request's address has spent its budget of failed authentications: called before a credential is looked up in the database */
    refuseSpentAuthFailures: (request: FastifyRequest, reply: FastifyReply) => void
  }
}

export interface AuthFailuresOptions { limits: Config['rateLimits'] }

const AUTH_FAILURE_WINDOW = 15 * 60_000
const BEARER_SCHEME = /^\s*bearer\s/i
const TOO_MANY_BODY = JSON.stringify({ code: 429, message: statusMessages[429], reason: statusReasons[429] })

async function authFailuresPlugin (app: FastifyInstance, { limits }: AuthFailuresOptions) {
  // On a route that authenticates, a request without a Bearer credential (a cookie, nothing) from a
  // spent address is refused by the first onRequest hook below. A Bearer JWT or the ingest token is
  // still checked, in memory, so that people sharing the address (NAT) who hold a valid token are
  // not locked out by a guesser among them; its refusal is answered 429. An API key the instance's
  // view does not hold is refused before its lookup (src/plugins/api-keys.ts).
  const authFailures = app.createRateLimit({
    max: limits.authFailuresIp,
    timeWindow: AUTH_FAILURE_WINDOW,
    keyGenerator: (request: FastifyRequest) => `auth-fail:${clientOf(request)}`
  })
  // The addresses whose budget is spent, until their window ends, as the counts' answers said: a
  // lookup in memory, never a store round trip per request. With Redis, another instance's count
  // is learnt at this instance's next failure from the address (that one request does its work).
  // Bounded like a limiter's store; an address pushed out is refused again at its next failure.
  const spent = new Map<string, number>()
  function spentFor (request: FastifyRequest): number {
    if (spent.size === 0) return 0
    const client = clientOf(request)
    const until = spent.get(client)
    if (until === undefined) return 0
    const left = until - Date.now()
    if (left > 0) return Math.ceil(left / 1000)
    spent.delete(client)
    return 0
  }
  function markSpent (request: FastifyRequest, ttlMs: number) {
    if (spent.size >= limits.localKeys) spent.delete(spent.keys().next().value!)
    spent.set(clientOf(request), Date.now() + ttlMs)
  }
  const AUTH_FAILURES = { limiter: 'auth-failures', keyKind: 'ip' } as const
  function refuseSpent (request: FastifyRequest, reply: FastifyReply): void {
    const wait = spentFor(request)
    if (wait === 0) return
    refusalHeaders(reply, limits.authFailuresIp, wait)
    throw limitRefused(AUTH_FAILURES.limiter, AUTH_FAILURES.keyKind)
  }
  app.decorate('refuseSpentAuthFailures', refuseSpent)

  app.addHook('onRequest', (request, reply, done) => {
    if (spent.size === 0 || !authenticates(request) || BEARER_SCHEME.test(request.headers.authorization ?? '')) {
      done()
      return
    }
    try {
      refuseSpent(request, reply)
      done()
    } catch (err) {
      done(err as Error)
    }
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode !== 401) {
      done(null, payload)
      return
    }
    const wait = spentFor(request)
    if (wait > 0) {
      // refused in memory (a Bearer token) after the budget was spent
      done(null, tooMany(request, reply, wait))
      return
    }
    authFailures(request).then((result) => {
      // no allow list: every count has an answer
      if (result.isAllowed) {
        done(null, payload)
        return
      }
      if (result.remaining === 0) markSpent(request, result.ttl)
      // past the budget already: another instance spent it (Redis shares the count)
      done(null, result.isExceeded ? tooMany(request, reply, Math.max(1, result.ttlInSeconds)) : payload)
    }, (err: Error) => done(err))
  })

  function tooMany (request: FastifyRequest, reply: FastifyReply, wait: number): string {
    // the 401 this answer replaces named a scheme to retry with: now the client waits
    reply.code(429).removeHeader('www-authenticate')
    refusalHeaders(reply, limits.authFailuresIp, wait)
    reply.header('content-type', 'application/json; charset=utf-8')
    logLimitRefused(request, AUTH_FAILURES, wait)
    return TOO_MANY_BODY
  }
}

// a route that authenticates declares how in its schema's `security` (the public ones declare none)
function authenticates (request: FastifyRequest): boolean {
  const security = (request.routeOptions.schema as { security?: unknown[] } | undefined)?.security
  return Array.isArray(security) && security.length > 0
}

export default fp(authFailuresPlugin, { name: 'auth-failures', dependencies: ['rate-limit'] })
