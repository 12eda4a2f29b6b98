// In-process fixed-window counters for one rate limiter (without Redis, or while it is away).
//
// A counter is dropped only when its window has passed, never to make room: a flood of fresh keys
// (addresses, e-mails) must not reset the count of the key it attacks, as an LRU would. The Map is
// kept in window order (a counter whose window restarts is moved to the end), so expired counters
// are always at its front and sweeping them costs only what it removes. When `maxKeys` live
// counters are kept, a new key is counted on one counter shared by every key that did not fit: those
// clients are limited together, more strictly than alone, and no live counter is forgotten.

export interface WindowCount {
  /** hits in this window, this one included */
  current: number
  /** ms until the window ends */
  ttl: number
}

interface Entry { count: number, resetAt: number }

export interface WindowCounters {
  hit: (key: string, windowMs: number, now?: number) => WindowCount
  /** live counters kept (the shared overflow counter not included) */
  readonly size: number
  /** keys counted on the shared overflow counter since start */
  readonly overflowed: number
}

export function windowCounters (maxKeys: number): WindowCounters {
  const counters = new Map<string, Entry>()
  const overflow: Entry = { count: 0, resetAt: 0 }
  let overflowed = 0

  /** drops up to `limit` expired counters from the front */
  function sweep (now: number, limit: number) {
    for (const [key, entry] of counters) {
      if (entry.resetAt > now || limit-- <= 0) break
      counters.delete(key)
    }
  }

  function count (entry: Entry, windowMs: number, now: number): WindowCount {
    if (entry.resetAt <= now) {
      entry.count = 0
      entry.resetAt = now + windowMs
    }
    entry.count++
    return { current: entry.count, ttl: entry.resetAt - now }
  }

  return {
    hit (key, windowMs, now = Date.now()) {
      const entry = counters.get(key)
      if (entry !== undefined) {
        if (entry.resetAt > now) {
          entry.count++
          return { current: entry.count, ttl: entry.resetAt - now }
        }
        counters.delete(key)
      }
      // a new key clears two expired ones on its way in, so the map follows the live keys down too
      sweep(now, counters.size >= maxKeys ? Infinity : 2)
      if (counters.size >= maxKeys) {
        overflowed++
        return count(overflow, windowMs, now)
      }
      const fresh = { count: 1, resetAt: now + windowMs }
      counters.set(key, fresh)
      return { current: 1, ttl: windowMs }
    },
    get size () { return counters.size },
    get overflowed () { return overflowed }
  }
}
