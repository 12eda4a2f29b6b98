// Refusals an operator looks for, each a log line of its own (docs/operations.md, Logs), written by
// one onError hook for every route:
// - `authorization refused`: a 401 or 403 of authentication or authorization, with a reason (no
//   credentials, credentials refused, key scope, second factor required, fresh proof required, ...),
//   the route's pattern and, once known, the user's id (and the API key's);
// - `rate limit refused`: a 429, with the limiter's name and the kind of key it counts (ip, user,
//   email, session, key), never the key itself: an address, an e-mail or a token stays out of the log.
// A limit names itself by throwing limitRefused(); a 429 thrown without a name is logged as `unnamed`.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { ERR_PREFIX, TooManyRequests } from '../errors.ts'
import { actorOf } from '../logger.ts'

/** what a limit's key counts: the line says which, never the key */
export type KeyKind = 'ip' | 'user' | 'email' | 'session' | 'key' | 'endpoint'
export interface LimitRefusal { limiter: string, keyKind: KeyKind | 'unknown' }

/** the 429 of a named limit */
export function limitRefused (limiter: string, keyKind: KeyKind): Error {
  return Object.assign(new TooManyRequests(), { limit: { limiter, keyKind } satisfies LimitRefusal })
}

/** a 401 or 403 with a reason more precise than its code's (an API key's scope) */
export function refusedBecause<E extends Error> (error: E, reason: string): E {
  return Object.assign(error, { refusal: reason })
}

// the reason of each refusal of authentication or authorization, by the error's code
const REASONS: Record<string, string> = {
  [`${ERR_PREFIX}_FORBIDDEN`]: 'forbidden',
  [`${ERR_PREFIX}_NOT_OWNER`]: 'forbidden',
  [`${ERR_PREFIX}_ALREADY_GENERATED`]: 'forbidden',
  [`${ERR_PREFIX}_PROOF_REFUSED`]: 'proof refused',
  [`${ERR_PREFIX}_CROSS_SITE`]: 'cross-site request',
  [`${ERR_PREFIX}_SECOND_FACTOR_REQUIRED`]: 'second factor required',
  [`${ERR_PREFIX}_FACTOR_PROOF_REQUIRED`]: 'factor proof required',
  [`${ERR_PREFIX}_REAUTHENTICATION_REQUIRED`]: 'fresh proof required'
}

function reasonOf (error: FastifyError & { refusal?: string }, request: FastifyRequest): string | undefined {
  if (error.refusal !== undefined) return error.refusal
  if (error.code === `${ERR_PREFIX}_UNAUTHORIZED`) {
    return request.headers.authorization === undefined && request.headers.cookie === undefined ? 'no credentials' : 'credentials refused'
  }
  return REASONS[error.code]
}

/** the `rate limit refused` line of a request */
export function logLimitRefused (request: FastifyRequest, limit: LimitRefusal, retryAfterS?: unknown): void {
  request.log.info({
    event: 'rate limit refused',
    limiter: limit.limiter,
    keyKind: limit.keyKind,
    route: request.routeOptions.url,
    method: request.method,
    ...(retryAfterS !== undefined ? { retryAfterS: Number(retryAfterS) } : {}),
    ...actorOf(request)
  }, 'rate limit refused')
}

async function refusalLogPlugin (app: FastifyInstance) {
  app.addHook('onError', (request, reply, error: FastifyError & { limit?: LimitRefusal, refusal?: string }, done) => {
    const status = error.statusCode
    if (status === 429) {
      logLimitRefused(request, error.limit ?? { limiter: 'unnamed', keyKind: 'unknown' }, reply.getHeader('retry-after'))
    } else if (status === 401 || status === 403) {
      const reason = reasonOf(error, request)
      if (reason !== undefined) {
        request.log.info({
          event: 'authorization refused', status, reason, route: request.routeOptions.url, method: request.method, ...actorOf(request)
        }, 'authorization refused')
      }
    }
    done()
  })
}

export default fp(refusalLogPlugin, { name: 'refusal-log' })
