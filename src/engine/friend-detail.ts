// Which interests a friend shares with the report's profile, and the friend's red flags. The Friend
// object carries only the two counts, so a report keeps, per listed friend, the interest ids behind
// them (compact: ids and two numbers per red flag), and the detail endpoint resolves those ids
// against the report's stored category tree when it is read.
import type { Category, Interest } from '../../schemas/report.ts'
import { interestIdsOf, type DatasetIndex } from './dataset.ts'
import { isActiveIn } from './months.ts'
import type { FriendInterestIds, FriendInterests, FriendLists, ProfileDef, Source } from './types.ts'
import { addFollow, createTally, monthShares, rankInterests, type ScoredInterest } from './weights.ts'

// `ranked` is I_T(P) in 4.2 order. Only friends in one of the lists are kept: the others have no
// detail to open. A red flag's share is the friend's own, from its active follows in month T, with
// the weights of 4.1 (so it is what the friend's own report would say).
export function friendInterests (
  ranked: readonly ScoredInterest[], friends: readonly ProfileDef[], lists: FriendLists, index: DatasetIndex, month: number
): FriendInterests {
  const listed = new Set<string>()
  for (const f of lists.common) listed.add(f.id)
  const flagged = new Set<string>()
  for (const f of lists.redFlags) flagged.add(f.id)
  const rank = new Map<string, number>()
  ranked.forEach((s, at) => rank.set(s.id, at))
  const byRank = (a: string, b: string) => (rank.get(a) as number) - (rank.get(b) as number)

  const byFriend: Record<string, FriendInterestIds> = {}
  const redFlagNames: Record<string, [string, string]> = {}
  for (const f of friends) {
    const red = flagged.has(f.id)
    if (!red && !listed.has(f.id)) continue
    // the weights are needed for red flags only: a friend with none is one pass over its interests
    const tally = red ? createTally() : null
    const seen = new Set<string>()
    for (const follow of f.follows) {
      if (!isActiveIn(follow, month)) continue
      const p = index.accountPos.get(follow.accountId)
      if (p === undefined) continue
      const ids = interestIdsOf(index, p)
      // an account with no known interest spreads nothing, as in the profile's own weights
      if (ids.length === 0) continue
      if (tally !== null) addFollow(tally, ids)
      for (const id of ids) seen.add(id)
    }
    const common = [...seen].filter((id) => rank.has(id)).sort(byRank)
    let redFlags: FriendInterestIds['redFlags'] = []
    if (tally !== null) {
      const scored = rankInterests([...seen].filter((id) => index.interests.get(id)?.redFlag != null), monthShares(tally), index.interests)
      for (const s of scored) redFlagNames[s.id] = [s.name, s.def.redFlag?.label ?? '']
      redFlags = scored.map((s) => [s.id, s.share, s.relative])
    }
    byFriend[f.id] = { common, redFlags }
  }
  return { byFriend, redFlagNames }
}

// The read side: the stored ids as Interest objects. Shared interests are the profile's own, with
// the share, relative and badge the report's tree gives them; red flags are the friend's.
export function resolveFriendInterests (
  tree: readonly Category[], ids: FriendInterestIds, redFlagNames: Readonly<Record<string, [string, string]>>, source: Source
): { common: Interest[], redFlags: Interest[] } {
  const inTree = new Map<string, Interest>()
  for (const c of tree) for (const i of c.interests) inTree.set(i.id, i)
  const common: Interest[] = []
  for (const id of ids.common) {
    const i = inTree.get(id)
    // the ids were taken from this very tree at generation: a miss would be a stored report edited by hand
    if (i === undefined) continue
    common.push({
      id: i.id, name: i.name, share: i.share, relative: i.relative, unactive: false,
      ...(i.category === undefined ? {} : { category: i.category }),
      source: i.source
    })
  }
  const redFlags: Interest[] = ids.redFlags.map(([id, share, relative]) => {
    const [name, label] = Object.hasOwn(redFlagNames, id) ? redFlagNames[id] : [id, '']
    return { id, name, share, relative, unactive: false, ...(label === '' ? {} : { category: label }), source }
  })
  return { common, redFlags }
}
