// Rate limits (DESIGN 8.5): a global budget per user or IP, and named limiters that routes put in
// their hooks. Counters live in Redis when REDIS_URL is set, so every instance shares them.
// request.ip is the socket address unless the peer is a trusted proxy (TRUST_PROXY), so a spoofed
// X-Forwarded-For buys no fresh budget.
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { TooManyRequests } from '../errors.ts'
import { prefixedKeys } from '../services/bounded-map.ts'

export interface LimitOptions {
  /** distinguishes this limiter's counters from the others' */
  name: string
  max: number
  timeWindow: string | number
  key: (request: FastifyRequest) => string | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    limiter: (opts: LimitOptions) => (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

export interface RateLimitPluginOptions { globalMax: number, redisUrl: string }

async function rateLimitPlugin (app: FastifyInstance, opts: RateLimitPluginOptions) {
  let redis: Redis | undefined
  if (opts.redisUrl) {
    redis = new Redis(opts.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    redis.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'redis error'))
    app.addHook('onClose', async () => { redis?.disconnect() })
    // Without an offline queue, commands sent before the connection is up fail (and skipOnError lets
    // them through): wait for it at start, a little, so the first requests are counted too.
    const r = redis
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 3000)
      r.once('ready', () => { clearTimeout(timer); resolve(true) })
    })
    if (!ready) app.log.warn('redis is not reachable yet: rate limits are not enforced until it is')
  }
  const userKey = prefixedKeys('u:')
  const ipKey = prefixedKeys('ip:')
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler', // after authentication, so a signed-in user has a budget of their own
    max: opts.globalMax,
    timeWindow: '1 minute',
    keyGenerator: (request) => request.user?.id ? userKey(request.user.id) : ipKey(request.ip),
    nameSpace: 'pir-rl:',
    skipOnError: true, // Redis down: serve rather than fail
    ...(redis ? { redis } : {}),
    errorResponseBuilder: () => new TooManyRequests()
  })

  app.decorate('limiter', (limit: LimitOptions) => {
    const check = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.timeWindow,
      keyGenerator: (request: FastifyRequest) => `${limit.name}:${limit.key(request) ?? request.ip}`
    })
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await check(request)
      if (!result.isAllowed && result.isExceeded) {
        reply.header('retry-after', String(Math.max(1, result.ttlInSeconds)))
        throw new TooManyRequests()
      }
    }
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit', dependencies: ['auth'] })
