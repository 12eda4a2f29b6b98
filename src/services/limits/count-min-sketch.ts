// A count-min sketch over one fixed window: the counts of keys that found no exact counter, in a fixed
// amount of memory (docs/decisions/limits.md, In-process counters under a flood of keys).
//
// Each key has one cell in each of DEPTH rows; its estimate is the smallest of its cells. An increment
// raises each of its cells to at least the new estimate and no further (conservative update), so an
// estimate never falls below the key's true count: a key that floods is refused as it would be on an
// exact counter. Another key's cells are shared only by chance, so its estimate stays near its own
// count unless every one of its cells is crowded. The cells are chosen by a keyed hash with a secret
// drawn at start, so nobody outside the process can aim keys at the cells of someone else's.
import { createHash, randomBytes } from 'node:crypto'

const DEPTH = 4
/** the least width: below it a few thousand keys in one window would start to crowd the cells */
const MIN_WIDTH = 1 << 16
/** the most: 16 MB a limiter, whatever RATE_LIMIT_LOCAL_KEYS allows the exact counters */
const MAX_WIDTH = 1 << 20

export interface CountMinSketch {
  /** counts one hit of `key` and returns its estimate, this hit included; a window that has ended starts anew, `windowMs` long */
  hit: (key: string, windowMs: number, now: number) => number
  /** the estimate of `key` in the live window (0 when none is live) */
  estimate: (key: string, now: number) => number
  /** a window is running: some key was counted and it has not ended */
  live: (now: number) => boolean
  /** when the running window ends */
  readonly resetAt: number
  /** cells held (DEPTH times the width), fixed from the first hit on */
  readonly cells: number
}

/** the smallest power of two that is at least `n`, within MIN_WIDTH and MAX_WIDTH */
export function sketchWidth (n: number): number {
  let width = MIN_WIDTH
  while (width < n && width < MAX_WIDTH) width *= 2
  return width
}

/**
 * A sketch `width` cells wide in each row (a power of two). The cells are allocated at the first
 * hit: a limiter that never overflows pays nothing.
 */
export function countMinSketch (width: number): CountMinSketch {
  if (width < 1 || (width & (width - 1)) !== 0) throw new RangeError('a sketch width is a power of two')
  const secret = randomBytes(16)
  const mask = width - 1
  let rows: Uint32Array | undefined
  let resetAt = 0
  const at = new Uint32Array(DEPTH)

  /** the cell of `key` in each row, into `at` */
  function place (key: string) {
    const digest = createHash('sha256').update(secret).update(key).digest()
    for (let row = 0; row < DEPTH; row++) at[row] = row * width + (digest.readUInt32LE(row * 4) & mask)
  }

  function smallest (cells: Uint32Array): number {
    let least = cells[at[0]]
    for (let row = 1; row < DEPTH; row++) least = Math.min(least, cells[at[row]])
    return least
  }

  return {
    hit (key, windowMs, now) {
      if (rows === undefined) rows = new Uint32Array(DEPTH * width)
      if (resetAt <= now) {
        rows.fill(0)
        resetAt = now + windowMs
      }
      place(key)
      const count = smallest(rows) + 1
      for (let row = 0; row < DEPTH; row++) if (rows[at[row]] < count) rows[at[row]] = count
      return count
    },
    estimate (key, now) {
      if (rows === undefined || resetAt <= now) return 0
      place(key)
      return smallest(rows)
    },
    live: (now) => resetAt > now,
    get resetAt () { return resetAt },
    get cells () { return rows === undefined ? 0 : rows.length }
  }
}
