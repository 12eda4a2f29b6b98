// 4.1 interest weights and 4.2 order.
//
// A Tally is the set of follows active in one month, kept as integer counts so that follows can
// start and end month by month (the sweep in timeline.ts) without floating-point drift:
// w(i) = sum over k of (active follows with k interests carrying i) / k. Summing those terms in
// ascending k makes w a function of the counts alone, so equal counts always give equal bits and
// an interest leaves I_M exactly when its last follow ends.
import type { IndexedInterest } from './dataset.ts'

export interface Tally {
  total: number // active follows of accounts with k >= 1 interests
  counts: Map<string, KCounts> // interest -> its active follows by k; no interest with none
}

// Parallel arrays, `ks` ascending: an interest meets few distinct k's, and this keeps the sum below
// free of allocation and sorting (it runs for every active interest of every month with events).
interface KCounts {
  ks: number[]
  ns: number[]
}

export function createTally (): Tally {
  return { total: 0, counts: new Map() }
}

export function addFollow (tally: Tally, interests: readonly string[]): void {
  const k = interests.length
  tally.total++
  for (const id of interests) {
    let c = tally.counts.get(id)
    if (c === undefined) tally.counts.set(id, c = { ks: [], ns: [] })
    let at = 0
    while (at < c.ks.length && c.ks[at] < k) at++
    if (c.ks[at] === k) c.ns[at]++
    else {
      c.ks.splice(at, 0, k)
      c.ns.splice(at, 0, 1)
    }
  }
}

// Only ever called for a follow added before, so its k is there.
export function removeFollow (tally: Tally, interests: readonly string[]): void {
  const k = interests.length
  tally.total--
  for (const id of interests) {
    const c = tally.counts.get(id) as KCounts
    const at = c.ks.indexOf(k)
    if (--c.ns[at] > 0) continue
    c.ks.splice(at, 1)
    c.ns.splice(at, 1)
    if (c.ks.length === 0) tally.counts.delete(id)
  }
}

function weight (c: KCounts): number {
  let w = 0
  for (let j = 0; j < c.ks.length; j++) w += c.ns[j] / c.ks[j]
  return w
}

// The shares of one month: I_M is the key set of `shares`.
export interface MonthShares {
  shares: ReadonlyMap<string, number>
  maxShare: number
}

export const EMPTY_MONTH: MonthShares = { shares: new Map(), maxShare: 0 }

export function monthShares (tally: Tally): MonthShares {
  const shares = new Map<string, number>()
  let maxShare = 0
  for (const [id, c] of tally.counts) {
    const share = weight(c) / tally.total
    shares.set(id, share)
    if (share > maxShare) maxShare = share
  }
  return { shares, maxShare }
}

// Shares are rationals computed in doubles: two interests with mathematically equal shares reached
// through different k's (1/2 + 1/6 + 1/3 against 1) may differ in the last bit. Treating values
// within 1e-12 of each other as equal keeps such ties in name order, as the arithmetic intends;
// the error of the sums is ~1e-15, far below, and the 1e-9 agreement the report computation promises is kept
// (docs/architecture.md, Report computation).
const TIE = 1e-12

export function sameShare (a: number, b: number): boolean {
  return Math.abs(a - b) <= TIE * Math.max(Math.abs(a), Math.abs(b))
}

// share / max share, and exactly 1 for every share tied with the maximum (so the first in order
// always has relative 1, even when a tie was decided by name).
export function relativeOf (share: number, maxShare: number): number {
  return sameShare(share, maxShare) ? 1 : share / maxShare
}

// Code-point order, not UTF-16 code-unit order (what `<` gives): the two differ only when one side
// has an astral character (a surrogate) and the other a character in U+E000..U+FFFF. Remapping the
// first differing code unit puts surrogates above the rest of the BMP. Never locale-dependent.
export function compareText (a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

function codePointRank (unit: number): number {
  if (unit < 0xd800) return unit
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800
}

export interface Ranked {
  id: string
  name: string
  share: number
}

// 4.2: share desc, then name, then id. Used for interests and categories alike.
export function compareRanked (a: Ranked, b: Ranked): number {
  if (!sameShare(a.share, b.share)) return b.share - a.share
  return compareText(a.name, b.name) || compareText(a.id, b.id)
}

export interface ScoredInterest extends Ranked {
  def: IndexedInterest
  relative: number
}

// The given interests of a month, with their shares, in 4.2 order.
export function rankInterests (
  ids: Iterable<string>, month: MonthShares, interests: ReadonlyMap<string, IndexedInterest>
): ScoredInterest[] {
  const out: ScoredInterest[] = []
  for (const id of ids) {
    const def = interests.get(id) as IndexedInterest
    const share = month.shares.get(id) as number
    out.push({ id, name: def.name, share, relative: relativeOf(share, month.maxShare), def })
  }
  return out.sort(compareRanked)
}
