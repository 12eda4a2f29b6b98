// Randomness and the calendar of the demo dataset (src/services/demo/data.ts): seeded, so the same
// seed and month give the same data on any machine.

// ---------------------------------------------------------------- randomness

/** mulberry32: a tiny, fast 32-bit PRNG; numbers in [0, 1) */
export function mulberry32 (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// One independent stream per purpose (and per profile), so that each part is stable on its own.
export function stream (seed: number, label: string): () => number {
  let h = (seed ^ 0x9e3779b9) >>> 0
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0
  return mulberry32(h ^ (h >>> 16))
}

export type Rng = () => number
export const int = (rng: Rng, n: number) => Math.floor(rng() * n)
export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)]

/** index drawn with the given weights */
export function weighted (rng: Rng, weights: readonly number[], total = weights.reduce((s, w) => s + w, 0)): number {
  let x = rng() * total
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]
    if (x < 0) return i
  }
  return weights.length - 1
}

/** Pareto-distributed whole number >= min (heavy tail), capped */
export const pareto = (rng: Rng, min: number, alpha: number, cap: number) =>
  Math.min(cap, Math.floor(min / Math.pow(1 - rng(), 1 / alpha)))

// ---------------------------------------------------------------- calendar

export function parseMonth (month: string): number {
  const m = /^(\d{4})-(\d{2})$/.exec(month)
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[1]) < 1900) throw new Error(`month must be YYYY-MM, not ${JSON.stringify(month)}`)
  return Number(m[1]) * 12 + Number(m[2]) - 1
}
export const pad = (n: number, w = 2) => String(n).padStart(w, '0')
export function daysIn (index: number): number {
  const y = Math.floor(index / 12)
  const m = index % 12
  if (m === 1) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]
}
export const day = (index: number, d: number) => `${Math.floor(index / 12)}-${pad(index % 12 + 1)}-${pad(d)}`
