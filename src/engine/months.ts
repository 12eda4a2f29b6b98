// Month arithmetic. A month is the integer year * 12 + (month - 1), so "the next month" is + 1 and
// comparisons are plain number comparisons. Dates are read as text ('YYYY-MM…'): no time zone can
// move a follow into a neighbouring month.
import type { FollowDef, MonthInput } from './types.ts'

// Called twice per follow of the profile and of every friend (hundreds of thousands of times):
// char codes rather than a RegExp and Number(), which showed up first in the profile.
export function parseMonth (text: string): number {
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3)
  const month = digit(text, 5) * 10 + digit(text, 6)
  // NaN (a non-digit) fails every comparison, so `!(… )` catches it with the range check
  if (!(month >= 1 && month <= 12) || text.charCodeAt(4) !== 45 /* - */ || Number.isNaN(year)) {
    throw new RangeError(`not a YYYY-MM date: ${JSON.stringify(text)}`)
  }
  return year * 12 + month - 1
}

function digit (text: string, at: number): number {
  const d = text.charCodeAt(at) - 48
  return d >= 0 && d <= 9 ? d : NaN
}

export function toMonth (input: MonthInput): number {
  if (typeof input === 'string') return parseMonth(input)
  if (Number.isNaN(input.getTime())) throw new RangeError('invalid Date for the report month')
  return input.getUTCFullYear() * 12 + input.getUTCMonth()
}

export function formatMonth (month: number): string {
  const year = Math.floor(month / 12)
  const mm = month - year * 12 + 1
  return `${String(year).padStart(4, '0')}-${String(mm).padStart(2, '0')}`
}

// The months a follow is active: [start, end). `end` is Infinity while still following;
// an `until` in the month of `since` (or before it) gives an empty range.
export interface ActiveRange {
  start: number
  end: number
}

export function activeRange (follow: FollowDef): ActiveRange {
  return {
    start: parseMonth(follow.since),
    // `== null`: a loader may leave `until` out as well as null it (ingest allows both)
    end: follow.until == null ? Infinity : parseMonth(follow.until)
  }
}

// The 4.1 activity rule, without building a range (hot: every follow of every friend).
export function isActiveIn (follow: FollowDef, month: number): boolean {
  return parseMonth(follow.since) <= month && (follow.until == null || parseMonth(follow.until) > month)
}

/** the latest month a profile's follows name (`since`, or `until`, which ends a follow in that month); -Infinity for none */
export function dataMonthOf (follows: readonly FollowDef[]): number {
  let last = -Infinity
  for (const f of follows) {
    const m = f.until == null ? parseMonth(f.since) : Math.max(parseMonth(f.since), parseMonth(f.until))
    if (m > last) last = m
  }
  return last
}

/**
 * The month T a report generated at `now` covers: the current month, or the latest month its
 * profiles' data holds when that is later (data dated ahead is taken as its own month's, not cut off).
 * The alert worker asks the same of one profile, so that an alert's month is one a report shows.
 */
export function reportMonth (now: MonthInput, profiles: readonly { follows: readonly FollowDef[] }[]): number {
  let month = toMonth(now)
  for (const p of profiles) month = Math.max(month, dataMonthOf(p.follows))
  return month
}
