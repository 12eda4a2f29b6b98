// One pass over a profile's history: every follow becomes a start event (and an end event when it
// ends by T), events are applied month by month to a Tally, and each month with events is compared
// with the month before. Cost O(follows log follows + event months x active interests), instead of
// rescanning every follow for every month.
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

interface FollowEvent {
  month: number
  start: boolean
  interests: readonly string[]
}

export function sweep (follows: readonly FollowDef[], index: DatasetIndex, lastMonth: number): Timeline {
  // "after the month of P's first follow": any follow counts, even of an account with no interests
  let first = Infinity
  const events: FollowEvent[] = []
  for (const follow of follows) {
    const range = activeRange(follow)
    if (range.start < first) first = range.start
    const p = index.accountPos.get(follow.accountId)
    const interests = p === undefined ? NONE : interestIdsOf(index, p)
    // accounts with no (known) interests carry no weight and are not in `total` (4.1)
    if (interests.length === 0 || range.start >= range.end || range.start > lastMonth) continue
    events.push({ month: range.start, start: true, interests })
    if (range.end <= lastMonth) events.push({ month: range.end, start: false, interests })
  }
  events.sort((a, b) => a.month - b.month)

  const tally = createTally()
  const changes: MonthChange[] = []
  let previous = EMPTY_MONTH
  for (let i = 0; i < events.length;) {
    const month = events[i].month
    // a month's starts and ends may interleave: an end always belongs to a follow started earlier
    for (; i < events.length && events[i].month === month; i++) {
      const e = events[i]
      if (e.start) addFollow(tally, e.interests)
      else removeFollow(tally, e.interests)
    }
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
