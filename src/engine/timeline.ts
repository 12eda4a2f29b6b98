// One pass over a profile's history: every follow becomes a start event (and an end event when it
// ends by T), events are applied month by month to a Tally, and each month with events is compared
// with the month before. Cost O(follows + event months x active interests), instead of rescanning
// every follow for every month. Events are grouped by month and only the distinct months are sorted:
// a sort of every event would make the sweep n log n in the follows (see docs/benchmarks.md, Engine).
import { interestIdsOf, type DatasetIndex } from './dataset.ts'
import { activeRange } from './months.ts'
import type { FollowDef } from './types.ts'
import { addFollow, createTally, EMPTY_MONTH, monthShares, removeFollow, type MonthShares } from './weights.ts'

export interface MonthChange {
  month: number
  added: string[] // I_M \ I_{M-1}
  lost: string[] // I_{M-1} \ I_M
  current: MonthShares // month M: the shares of `added`
  previous: MonthShares // month M - 1: the shares of `lost`
}

export interface Timeline {
  current: MonthShares // month T: I_T and its shares
  changes: MonthChange[] // oldest first: months after the first follow's month, up to T
}

const NONE: readonly string[] = []

// The follows that start and end in one month, as the interest lists they carry. Within a month the
// order does not matter: an end always belongs to a follow started in an earlier month, and a Tally
// is a function of its counts alone.
interface MonthEvents {
  starts: Array<readonly string[]>
  ends: Array<readonly string[]>
}

function eventsOf (byMonth: Map<number, MonthEvents>, month: number): MonthEvents {
  let events = byMonth.get(month)
  if (events === undefined) byMonth.set(month, events = { starts: [], ends: [] })
  return events
}

export function sweep (follows: readonly FollowDef[], index: DatasetIndex, lastMonth: number): Timeline {
  // "after the month of P's first follow": any follow counts, even of an account with no interests
  let first = Infinity
  const byMonth = new Map<number, MonthEvents>()
  for (const follow of follows) {
    const { start, end } = activeRange(follow)
    if (start < first) first = start
    const p = index.accountPos.get(follow.accountId)
    const interests = p === undefined ? NONE : interestIdsOf(index, p)
    // accounts with no (known) interests carry no weight and are not in `total` (4.1)
    if (interests.length === 0 || start >= end || start > lastMonth) continue
    eventsOf(byMonth, start).starts.push(interests)
    if (end <= lastMonth) eventsOf(byMonth, end).ends.push(interests)
  }
  const months = [...byMonth.keys()].sort((a, b) => a - b)

  const tally = createTally()
  const changes: MonthChange[] = []
  let previous = EMPTY_MONTH
  for (const month of months) {
    const events = byMonth.get(month) as MonthEvents
    for (const interests of events.starts) addFollow(tally, interests)
    for (const interests of events.ends) removeFollow(tally, interests)
    const current = monthShares(tally)
    if (month > first) {
      const added = [...current.shares.keys()].filter((id) => !previous.shares.has(id))
      const lost = [...previous.shares.keys()].filter((id) => !current.shares.has(id))
      if (added.length > 0 || lost.length > 0) changes.push({ month, added, lost, current, previous })
    }
    previous = current
  }
  return { current: previous, changes }
}
