// 4.3 the category tree of I_T(P), and the 8-interest preview of it that a ReportItem carries (4.4).
import type { Category, Follower, Interest } from '../../schemas/report.ts'
import { interestIdsOf, type DatasetIndex } from './dataset.ts'
import { followerOf, interestFields } from './interest.ts'
import { isActiveIn } from './months.ts'
import type { FollowDef, Source } from './types.ts'
import { compareRanked, compareText, relativeOf, type ScoredInterest } from './weights.ts'

const FOLLOWERS_PER_INTEREST = 3
export const PREVIEW_INTERESTS = 8

// `ranked` is I_T(P) in 4.2 order; the tree groups it by category, keeping that order inside each.
export function buildTree (
  ranked: readonly ScoredInterest[], follows: readonly FollowDef[], index: DatasetIndex, month: number, source: Source
): Category[] {
  const followers = followerPreviews(follows, index, month)
  const groups = new Map<string, { scored: ScoredInterest[], interests: Interest[] }>()
  for (const s of ranked) {
    const id = s.def.category.id
    let group = groups.get(id)
    if (group === undefined) groups.set(id, group = { scored: [], interests: [] })
    group.scored.push(s)
    group.interests.push({
      ...interestFields(s, source, false),
      // every interest of I_T is carried by at least one active follow: the list exists, non-empty
      follows: followers.get(s.id) as Follower[],
      ...(s.def.redFlag === null ? {} : { redCatId: s.def.redFlag.id })
    })
  }
  const categories = [...groups.values()].map((g) => {
    const c = g.scored[0].def.category
    let share = 0
    for (const s of g.scored) share += s.share
    return { id: c.id, name: c.name, share, interests: g.interests }
  })
  let maxShare = 0
  for (const c of categories) if (c.share > maxShare) maxShare = c.share
  return categories.sort(compareRanked).map((c) => ({
    id: c.id,
    name: c.name,
    share: c.share,
    relative: relativeOf(c.share, maxShare),
    unactive: false,
    source,
    interests: c.interests
  }))
}

// Up to 3 accounts per interest among P's follows active in month T: latest `since` first, then
// account id, equal follows in their given order (as a stable sort would leave them). Each interest
// keeps its first three as the follows go by: linear, where a sort of every active follow would be
// n log n (see docs/benchmarks.md, Engine).
function followerPreviews (follows: readonly FollowDef[], index: DatasetIndex, month: number): Map<string, Follower[]> {
  const firsts = new Map<string, FollowDef[]>()
  for (const f of follows) {
    if (!isActiveIn(f, month)) continue
    const p = index.accountPos.get(f.accountId)
    if (p === undefined) continue
    for (const id of interestIdsOf(index, p)) {
      let list = firsts.get(id)
      if (list === undefined) firsts.set(id, list = [])
      keepFirsts(list, f)
    }
  }
  const out = new Map<string, Follower[]>()
  for (const [id, list] of firsts) {
    out.set(id, list.map((f) => followerOf(index.accountDefs[index.accountPos.get(f.accountId) as number])))
  }
  return out
}

function comesBefore (a: FollowDef, b: FollowDef): boolean {
  return a.since === b.since ? compareText(a.accountId, b.accountId) < 0 : a.since > b.since
}

// `list` is in order and at most FOLLOWERS_PER_INTEREST long; f goes after every follow it does
// not come before.
function keepFirsts (list: FollowDef[], f: FollowDef): void {
  let at = list.length
  while (at > 0 && comesBefore(f, list[at - 1])) at--
  if (at === FOLLOWERS_PER_INTEREST) return
  list.splice(at, 0, f)
  if (list.length > FOLLOWERS_PER_INTEREST) list.pop()
}

// The tree cut to its first `limit` interests in display order; categories left empty are dropped.
// Categories keep the share and relative of the full tree: the preview is a window, not a re-count.
export function previewTree (tree: readonly Category[], limit = PREVIEW_INTERESTS): Category[] {
  const out: Category[] = []
  let left = limit
  for (const c of tree) {
    if (left === 0) break
    const interests = c.interests.slice(0, left)
    left -= interests.length
    out.push({ ...c, interests })
  }
  return out
}
