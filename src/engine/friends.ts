// 4.5 friends with common interests or red flags, and the paging rules of the Friends object.
import { SOURCES } from '../../schemas/common.ts'
import type { Friend, Friends, SourceProfile } from '../../schemas/report.ts'
import type { DatasetIndex, IndexedInterest } from './dataset.ts'
import { isActiveIn } from './months.ts'
import type { FriendLists, FriendsPageQuery, ProfileDef, Source } from './types.ts'
import { compareText } from './weights.ts'

function byUsernameThenId (a: Friend, b: Friend): number {
  return compareText(a.username, b.username) || compareText(a.id, b.id)
}

// `current` is I_T(P). A friend's own shares never matter, only which interests it has in month T:
// one pass over its follows, no sweep. Friends bring most of a report's follows (200 x 1,000 in
// the benchmark, see docs/benchmarks.md, Engine), so interests are deduplicated with a stamp per slot instead of a Set per friend.
export function friendLists (
  current: ReadonlyMap<string, unknown>, friends: readonly ProfileDef[], index: DatasetIndex, month: number
): FriendLists {
  const inProfile = new Uint8Array(index.redFlagBySlot.length)
  for (const id of current.keys()) inProfile[(index.interests.get(id) as IndexedInterest).slot] = 1
  const seenBy = new Uint32Array(inProfile.length)
  const { accountPos, slotStart, slots, redFlagBySlot } = index
  const common: Friend[] = []
  const redFlags: Friend[] = []
  let stamp = 0
  for (const f of friends) {
    stamp++
    let count = 0
    let redFlagsCount = 0
    for (const follow of f.follows) {
      if (!isActiveIn(follow, month)) continue
      const p = accountPos.get(follow.accountId)
      if (p === undefined) continue
      for (let j = slotStart[p], end = slotStart[p + 1]; j < end; j++) {
        const slot = slots[j]
        if (seenBy[slot] === stamp) continue
        seenBy[slot] = stamp
        count += inProfile[slot]
        redFlagsCount += redFlagBySlot[slot]
      }
    }
    if (count === 0 && redFlagsCount === 0) continue
    const friend: Friend = {
      image: f.image ?? '',
      id: f.id,
      username: f.username,
      fullname: f.fullname,
      imageNotLoaded: f.image == null,
      source: f.source,
      link: f.link,
      count,
      redFlagsCount
    }
    if (count > 0) common.push(friend)
    if (redFlagsCount > 0) redFlags.push(friend)
  }
  common.sort((a, b) => b.count - a.count || b.redFlagsCount - a.redFlagsCount || byUsernameThenId(a, b))
  redFlags.sort((a, b) => b.redFlagsCount - a.redFlagsCount || b.count - a.count || byUsernameThenId(a, b))
  return { common, redFlags }
}

// The report's sources on which the profile has anyone in either list, in the spec's source order.
export function availableSources (profiles: Iterable<{ source: Source, friends: FriendLists }>): Source[] {
  const found = new Set<Source>()
  for (const p of profiles) {
    if (p.friends.common.length > 0 || p.friends.redFlags.length > 0) found.add(p.source)
  }
  return SOURCES.filter((s) => found.has(s))
}

// One page of the Friends object. On the first page only, an empty requested list with a non-empty
// other one is swapped for the other, and the client is told so (sortByRedFlagsAdjusted); later
// pages follow the client's (by then aligned) sort as asked.
export function friendsPage (
  lists: FriendLists, query: FriendsPageQuery, sourceProfile: SourceProfile, sources: readonly Source[]
): Friends {
  const hasCommonInterests = lists.common.length > 0
  const hasRedFlags = lists.redFlags.length > 0
  const listOf = (byRedFlags: boolean) => byRedFlags ? lists.redFlags : lists.common
  let sortByRedFlags = query.sortByRedFlags ?? hasRedFlags
  const first = query.offset === 0
  const adjusted = first && listOf(sortByRedFlags).length === 0 && listOf(!sortByRedFlags).length > 0
  if (adjusted) sortByRedFlags = !sortByRedFlags
  const served = listOf(sortByRedFlags)
  const items = served.slice(query.offset, query.offset + query.limit)
  return {
    items,
    hasMore: query.offset + items.length < served.length,
    total: served.length,
    sourceProfile,
    sortByRedFlagsDefault: hasRedFlags,
    sortByRedFlags,
    hasCommonInterests,
    hasRedFlags,
    ...(first ? { sortByRedFlagsAdjusted: adjusted } : {}),
    availableSources: [...sources]
  }
}
