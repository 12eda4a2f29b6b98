// In-process fixed-window counters for one rate limiter (without Redis, or while it is away).
//
// Up to `maxKeys` live keys each have an exact counter. A counter is dropped only when its window has
// passed, never to make room: a flood of fresh keys (addresses, e-mails) must not reset the count of
// the key it attacks, as an LRU would. The Map is kept in window order (a counter whose window
// restarts is moved to the end), so expired counters are always at its front and sweeping them costs
// only what it removes. When the exact counters are full, a new key is counted in a count-min sketch
// of fixed size (src/services/limits/count-min-sketch.ts): its estimate never falls below its count,
// so a flooding key is still refused, and stays near its count for an unrelated key, so a fresh client
// is not refused with the flood (docs/decisions/limits.md, In-process counters under a flood of
// keys).
import { countMinSketch, sketchWidth } from './count-min-sketch.ts'

export interface WindowCount {
  /** hits in this window, this one included */
  current: number
  /** ms until the window ends */
  ttl: number
}

interface Entry { count: number, resetAt: number }

export interface WindowCounters {
  hit: (key: string, windowMs: number, now?: number) => WindowCount
  /** live exact counters kept (at most `maxKeys`) */
  readonly size: number
  /** cells of the sketch: 0 until the first key finds no exact counter, then fixed */
  readonly sketchCells: number
  /** hits counted in the sketch since start */
  readonly overflowed: number
}

export function windowCounters (maxKeys: number): WindowCounters {
  const counters = new Map<string, Entry>()
  const sketch = countMinSketch(sketchWidth(maxKeys))
  let overflowed = 0

  /** drops up to `limit` expired counters from the front */
  function sweep (now: number, limit: number) {
    for (const [key, entry] of counters) {
      if (entry.resetAt > now || limit-- <= 0) break
      counters.delete(key)
    }
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
        const current = sketch.hit(key, windowMs, now)
        return { current, ttl: sketch.resetAt - now }
      }
      // While the sketch's window runs, a key may have been counted there when the counters were
      // full: its exact counter goes on from that count, to the sketch's end, so room made by
      // expired counters resets nobody's count.
      if (sketch.live(now)) {
        const counted = sketch.estimate(key, now)
        if (counted > 0) {
          const carried = { count: counted + 1, resetAt: sketch.resetAt }
          counters.set(key, carried)
          return { current: carried.count, ttl: carried.resetAt - now }
        }
      }
      counters.set(key, { count: 1, resetAt: now + windowMs })
      return { current: 1, ttl: windowMs }
    },
    get size () { return counters.size },
    get sketchCells () { return sketch.cells },
    get overflowed () { return overflowed }
  }
}
