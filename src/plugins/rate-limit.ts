// Rate limits (docs/decisions/limits.md, Rate limits): a global budget per user or IP, named
// limiters that routes put in their hooks (the budget of failed authentications per IP is
// src/plugins/auth-failures.ts). Counters live in Redis when REDIS_URL is set, so every instance
// shares them, and in this process while Redis does not answer (src/services/limits/store.ts): no
// limit is ever skipped. request.ip is the socket address unless the peer is a trusted proxy
// (TRUST_PROXY), so a spoofed X-Forwarded-For buys no fresh budget; every per-IP key groups IPv6 by
// /64, and by /48 where one floods (src/services/limits/client-address.ts). Every 429 names its
// limiter and the kind of key it counts for the `rate limit refused` line
// (src/plugins/refusal-log.ts). Every limited answer carries one header family, the IETF draft's
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds), of the budget that counted
// it, and a 429 Retry-After (docs/integration.md, Budgets: rate limits).
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { clientAddresses } from '../services/limits/client-address.ts'
import { createLimitStores } from '../services/limits/store.ts'
import { limitRefused, type KeyKind } from './refusal-log.ts'

export interface LimitOptions {
  /** distinguishes this limiter's counters from the others' */
  name: string
  max: number
  timeWindow: string | number
  /** the key counted; undefined counts the client address */
  key: (request: FastifyRequest) => string | undefined
  /** what the key counts, for the log (never the key itself): 'user' unless given; 'ip' when it is the client address */
  keyKind?: KeyKind
}

type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

declare module 'fastify' {
  interface FastifyInstance {
    limiter: (opts: LimitOptions) => LimitHook
    /** POST /auth/confirm/resend: RATE_LIMIT_RESEND mails an hour per account */
    resendLimit: LimitHook
    /** an API key's request (request.user.apiKey set): RATE_LIMIT_API_KEY a minute per key, its RateLimit-* headers counting the key's budget */
    apiKeyLimit: LimitHook
    /** the per-IP key of a client address (src/services/limits/client-address.ts) */
    clientKeyOf: (ip: string) => string
  }
}

/** the per-IP key of a request's client: IPv4 as is, IPv6 by /64 (by /48 while one floods) */
export const clientOf = (request: FastifyRequest) => request.server.clientKeyOf(request.ip)

export interface RateLimitPluginOptions { limits: Config['rateLimits'], redisUrl: string }

const HOUR = 3600_000

/** the headers of a refusal by a limit that counts outside @fastify/rate-limit's hooks: its budget, spent, and when to retry */
export function refusalHeaders (reply: FastifyReply, max: number, waitS: number): void {
  reply.header('ratelimit-limit', String(max)).header('ratelimit-remaining', '0')
    .header('ratelimit-reset', String(waitS)).header('retry-after', String(waitS))
}

async function connectRedis (app: FastifyInstance, url: string) {
  // commandTimeout: a Redis that hangs is as away as one that refuses
  const redis = new Redis(url, { connectTimeout: 2000, commandTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  // Wait for it at start, a little, so the first requests are shared too (until then, or if it is
  // not there, they count in process).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 3000)
    const done = () => { clearTimeout(timer); redis.off('ready', done); redis.off('error', done); resolve() }
    redis.once('ready', done)
    redis.once('error', done)
  })
  return redis
}

async function rateLimitPlugin (app: FastifyInstance, opts: RateLimitPluginOptions) {
  const { limits } = opts
  const redis = opts.redisUrl ? await connectRedis(app, opts.redisUrl) : undefined
  const stores = createLimitStores({
    redis,
    namespace: 'pir-rl:',
    maxKeys: limits.localKeys,
    onRedisState: (down, err) => {
      if (down) app.log.error({ err: err && { message: err.message } }, 'redis does not answer: rate limits count in each process until it does')
      else app.log.warn('redis answers again: rate limits are shared again')
    }
  })
  if (redis) {
    let closing = false
    app.addHook('onClose', async () => { closing = true; redis.disconnect() })
    redis.on('error', (err) => { if (!closing) stores.redisFailed(err) })
    redis.on('close', () => { if (!closing) stores.redisFailed() })
    redis.on('ready', () => stores.redisReady())
    if (redis.status !== 'ready') stores.redisFailed()
  }
  // the /48s are tracked as the stores' keys are, RATE_LIMIT_LOCAL_KEYS of them at most
  const addresses = clientAddresses(limits.localKeys)
  app.decorate('clientKeyOf', addresses.keyOf)
  app.metrics?.watchRateLimits({ ...stores, prefixFloods: () => addresses.floods, prefixUntracked: () => addresses.untracked })

  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler', // after authentication, so a signed-in user has a budget of their own
    max: limits.global,
    timeWindow: '1 minute',
    // A user is counted under the id itself (a UUID, never `ip:...`): the string the verified token
    // already holds, so the counter's lookup builds and hashes no new key.
    keyGenerator: (request) => request.user?.id ?? `ip:${clientOf(request)}`,
    store: stores.Store as never,
    // RateLimit-* rather than X-RateLimit-*, for this budget and every route's own (they inherit it)
    enableDraftSpec: true,
    errorResponseBuilder: (request) => limitRefused('global', request.user ? 'user' : 'ip')
  })

  function limiter (limit: LimitOptions): LimitHook {
    const check = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.timeWindow,
      keyGenerator: (request: FastifyRequest) => `${limit.name}:${limit.key(request) ?? clientOf(request)}`
    })
    const kind = (request: FastifyRequest): KeyKind =>
      limit.key === clientOf || limit.key(request) === undefined ? 'ip' : limit.keyKind ?? 'user'
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await check(request)
      if (!result.isAllowed && result.isExceeded) {
        refusalHeaders(reply, limit.max, Math.max(1, result.ttlInSeconds))
        throw limitRefused(limit.name, kind(request))
      }
    }
  }
  app.decorate('limiter', limiter)
  app.decorate('resendLimit', limiter({ name: 'resend', max: limits.resend, timeWindow: HOUR, key: (r) => r.user?.id }))

  // API keys (docs/decisions/programs.md, API keys): a budget per key, run by the key's
  // authentication (src/plugins/api-keys.ts) rather than by the routes' hooks. A handler of
  // app.rateLimit marks the request as limited, so the global budget's preHandler passes it by: a
  // key never spends its owner's budget, and a person's request runs exactly what it ran without
  // keys. The handler writes the RateLimit-* headers of the key's budget (the global settings'
  // names); on 429 it throws the key's own limitRefused.
  const handlerOf = (app as unknown as { rateLimit: (options: Record<string, unknown>) => LimitHook }).rateLimit
  app.decorate('apiKeyLimit', handlerOf({
    max: limits.apiKey,
    timeWindow: 60_000,
    // the key's id as it is (a random UUID, no user's id): a counter key built per request would be
    // hashed anew on every lookup
    keyGenerator: (request: FastifyRequest) => request.user.apiKey!.id,
    errorResponseBuilder: () => limitRefused('api-key', 'key')
  }))
}

export default fp(rateLimitPlugin, { name: 'rate-limit', dependencies: ['jwt', 'metrics'] })
