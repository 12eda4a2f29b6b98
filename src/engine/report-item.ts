// 4.4 assembly: one profile's ReportItem and the full lists its paging endpoints serve.
import { SOURCES } from '../../schemas/common.ts'
import type { ReportItem } from '../../schemas/report.ts'
import { buildTree, previewTree } from './category-tree.ts'
import { indexDataset } from './dataset.ts'
import { buildDiffs, previewDiffs } from './diffs.ts'
import { friendInterests } from './friend-detail.ts'
import { availableSources, friendLists, friendsPage } from './friends.ts'
import { interestFields, profileFields } from './interest.ts'
import { toMonth } from './months.ts'
import { sweep } from './timeline.ts'
import type { Dataset, MonthInput, ProfileDef, ProfileInput, ProfileResult, Source } from './types.ts'
import { rankInterests } from './weights.ts'

export const TOP_INTERESTS = 10
export const PREVIEW_FRIENDS = 10

export function computeProfile (input: ProfileInput): ProfileResult {
  const index = indexDataset(input.dataset)
  const month = toMonth(input.month)
  const { profile } = input
  const { source } = profile

  const timeline = sweep(profile.follows, index, month)
  const current = timeline.current
  const ranked = rankInterests(current.shares.keys(), current, index.interests)
  const tree = buildTree(ranked, profile.follows, index, month, source)
  const diffs = buildDiffs(timeline.changes, current, index, source)
  const friends = friendLists(current.shares, input.friends, index, month)
  const sharedIds = friendInterests(ranked, input.friends, friends, index, month)
  const sourceProfile = profileFields(profile)
  const sources = input.availableSources ?? availableSources([{ source, friends }])

  const redFlags = ranked.filter((s) => s.def.redFlag !== null).map((s) => interestFields(s, source, false))
  const interestDiffs = previewDiffs(diffs)
  const item: ReportItem = {
    ...sourceProfile,
    categoriesCount: tree.length,
    ...(ranked.length > 0 ? { categories: previewTree(tree) } : {}),
    totalInterests: ranked.length,
    topInterests: ranked.slice(0, TOP_INTERESTS).map((s) => interestFields(s, source, false)),
    friends: friendsPage(friends, { offset: 0, limit: PREVIEW_FRIENDS }, sourceProfile, sources),
    // optional fields are left out rather than sent empty: the spec's "no follows" item has none
    ...(redFlags.length > 0 ? { redFlags } : {}),
    ...(interestDiffs === undefined ? {} : { interestDiffs })
  }
  return { item, tree, friends, friendInterests: sharedIds, diffs, sourceProfile }
}

// availableSources spans the whole report, so it is known only once every profile is computed:
// a caller computing profiles one by one (to report progress) patches each result with this.
export function withAvailableSources (result: ProfileResult, sources: readonly Source[]): ProfileResult {
  const friends = { ...result.item.friends, availableSources: [...sources] }
  return { ...result, item: { ...result.item, friends } }
}

export interface ReportInput {
  dataset: Dataset
  month: MonthInput
  profiles: readonly { profile: ProfileDef, friends: readonly ProfileDef[] }[]
}

// Every profile of a report, in source order ig, fb, tt, tw, li, with availableSources filled in.
export function computeReport (input: ReportInput): ProfileResult[] {
  const order = (s: Source) => SOURCES.indexOf(s)
  const results = [...input.profiles]
    .sort((a, b) => order(a.profile.source) - order(b.profile.source))
    .map((p) => computeProfile({ dataset: input.dataset, month: input.month, profile: p.profile, friends: p.friends }))
  const sources = availableSources(results.map((r) => ({ source: r.item.source, friends: r.friends })))
  return results.map((r) => withAvailableSources(r, sources))
}
