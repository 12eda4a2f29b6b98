// The counters behind every rate limit, in the store shape @fastify/rate-limit takes (incr, child).
// With REDIS_URL they live in Redis, shared by every instance; while Redis does not answer (not
// connected yet, gone away, a command failing or timing out) each limiter counts in this process
// instead (src/services/limits/window-counters.ts), so no limit is skipped: an outage costs the sharing
// between instances, never the limit. The outage is reported once, when it starts, and once when
// Redis answers again; never per request.
import type { Redis } from 'ioredis'
import { windowCounters, type WindowCount, type WindowCounters } from './window-counters.ts'

// INCR, and the window's expiry set by the hit that opens it: a fixed window, as in process.
const INCR = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`

type Callback = (err: Error | null, result: WindowCount) => void
type LimitRedis = Redis & { pirRateLimit: (key: string, windowMs: number, cb: (err: Error | null, r: [number, number]) => void) => void }

export interface LimitStoreOptions {
  redis?: Redis
  /** prefix of every key in Redis */
  namespace: string
  /** live keys each limiter keeps in process */
  maxKeys: number
  /** Redis stopped answering (down: true) or answers again (down: false); called once per change */
  onRedisState: (down: boolean, err?: Error) => void
}

export interface LimitStores {
  /** the class @fastify/rate-limit's `store` option takes */
  Store: new () => { incr: (key: string, cb: Callback, windowMs: number) => void, child: () => unknown }
  /** Redis is configured and not answering: limits count in process */
  degraded: () => boolean
  outages: () => number
  /** requests counted in a full limiter's sketch (src/services/limits/window-counters.ts), all limiters together */
  overflowed: () => number
  /** what Redis's connection says: it is ready again, or it failed */
  redisReady: () => void
  redisFailed: (err?: Error) => void
}

export function createLimitStores (opts: LimitStoreOptions): LimitStores {
  const redis = opts.redis as LimitRedis | undefined
  redis?.defineCommand('pirRateLimit', { numberOfKeys: 1, lua: INCR })
  let degraded = false
  let outages = 0
  const locals: WindowCounters[] = []

  function redisFailed (err?: Error) {
    if (degraded || !redis) return
    degraded = true
    outages++
    opts.onRedisState(true, err)
  }
  function redisReady () {
    if (!degraded) return
    degraded = false
    opts.onRedisState(false)
  }

  // One per limiter (child): a flood on one limiter's keys fills only that limiter's store, and the
  // fallback while Redis is away is this same store, sketch included.
  class LimitStore {
    private readonly local = windowCounters(opts.maxKeys)
    constructor () { locals.push(this.local) }

    incr (key: string, cb: Callback, windowMs: number): void {
      if (!redis || redis.status !== 'ready') {
        if (redis) redisFailed()
        cb(null, this.local.hit(key, windowMs))
        return
      }
      redis.pirRateLimit(opts.namespace + key, windowMs, (err, result) => {
        if (err) {
          redisFailed(err)
          cb(null, this.local.hit(key, windowMs))
          return
        }
        if (degraded) redisReady()
        cb(null, { current: Number(result[0]), ttl: Number(result[1]) })
      })
    }

    child (): LimitStore { return new LimitStore() }
  }

  return {
    Store: LimitStore,
    degraded: () => degraded,
    outages: () => outages,
    overflowed: () => locals.reduce((sum, l) => sum + l.overflowed, 0),
    redisReady,
    redisFailed
  }
}
