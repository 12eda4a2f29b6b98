// Properties over random small datasets, checked against a naive model of the engine written
// from its rules (every month recomputed from every follow), plus the engine's invariants.
import t from '../tap.ts'
import fc from 'fast-check'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  compareText, computeProfile, formatMonth, friendsPage, parseMonth, type Dataset, type FollowDef, type ProfileDef
} from '../../src/engine/index.ts'
import { CategorySchema, DiffItemSchema, FriendsSchema, ReportItemSchema } from '../../schemas/report.ts'
import type { Friend, Interest } from '../../schemas/report.ts'

// ------------------------------------------------------------------ the naive model

function activeIn (f: FollowDef, m: number) {
  return parseMonth(f.since) <= m && (f.until === null || parseMonth(f.until) > m)
}

function modelMonth (ds: Dataset, follows: readonly FollowDef[], m: number): Map<string, number> {
  const cats = new Set(ds.categories.map((c) => c.id))
  const known = new Set(ds.interests.filter((i) => cats.has(i.categoryId)).map((i) => i.id))
  let total = 0
  const w = new Map<string, number>()
  for (const f of follows) {
    if (!activeIn(f, m)) continue
    const a = ds.accounts.find((x) => x.id === f.accountId)
    const ints = [...new Set(a?.interests ?? [])].filter((i) => known.has(i))
    if (ints.length === 0) continue
    total++
    for (const i of ints) w.set(i, (w.get(i) ?? 0) + 1 / ints.length)
  }
  return new Map([...w].map(([i, v]) => [i, v / total]))
}

const TOL = 1e-12
const tied = (a: number, b: number) => Math.abs(a - b) <= TOL * Math.max(a, b)
// a may come before b in 4.2 order
function ordered (a: { share: number, name: string, id: string }, b: typeof a): boolean {
  if (!tied(a.share, b.share)) return a.share > b.share
  const byName = compareText(a.name, b.name)
  return byName < 0 || (byName === 0 && compareText(a.id, b.id) < 0)
}
const pairs = <T>(xs: readonly T[]) => xs.slice(1).map((x, n) => [xs[n], x] as const)
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id)

// ------------------------------------------------------------------ random datasets

const NAMES = ['Art', 'art', 'Bee', 'Cat', '\u{1F600}', '\uFFFD']
const date = (m: number, d: number) => `${formatMonth(parseMonth('2024-01') + m)}-${String(d).padStart(2, '0')}`

const followArb = (nAccounts: number) => fc.record({
  a: fc.nat(nAccounts - 1),
  since: fc.nat(17),
  day: fc.integer({ min: 1, max: 28 }),
  len: fc.option(fc.nat(8), { nil: null })
}).map(({ a, since, day, len }): FollowDef =>
  ({ accountId: `a${a}`, since: date(since, day), until: len === null ? null : date(since + len, day) }))

const worldArb = fc.record({
  nCat: fc.integer({ min: 1, max: 3 }),
  synthetic: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  nFlags: fc.nat(2),
  interests: fc.array(fc.record({ name: fc.constantFrom(...NAMES), cat: fc.nat(2), flag: fc.nat(3) }), { minLength: 1, maxLength: 12 }),
  accounts: fc.array(fc.record({ ints: fc.array(fc.nat(11), { maxLength: 4 }), image: fc.boolean() }), { minLength: 1, maxLength: 12 }),
  month: fc.nat(24)
}).chain((w) => fc.record({
  w: fc.constant(w),
  follows: fc.array(followArb(w.accounts.length), { maxLength: 40, size: 'max' }),
  friends: fc.array(fc.record({ name: fc.constantFrom('ann', 'bo', 'Cy'), follows: fc.array(followArb(w.accounts.length), { maxLength: 6 }) }), { maxLength: 5 }),
  query: fc.record({ sortByRedFlags: fc.option(fc.boolean(), { nil: undefined }), offset: fc.oneof(fc.constant(0), fc.nat(6)), limit: fc.integer({ min: 1, max: 4 }) })
})).map(({ w, follows, friends, query }) => {
  const ds: Dataset = {
    categories: Array.from({ length: w.nCat }, (_, n) => ({ id: `c${n}`, name: NAMES[n], synthetic: w.synthetic[n] })),
    redFlags: Array.from({ length: w.nFlags }, (_, n) => ({ id: `rf${n}`, label: `Flag ${n}` })),
    interests: w.interests.map((i, n) => ({ id: `i${n}`, name: i.name, categoryId: `c${i.cat}`, redFlagId: i.flag < w.nFlags ? `rf${i.flag}` : null })),
    accounts: w.accounts.map((a, n) => ({ id: `a${n}`, username: `u${n}`, fullname: `U ${n}`, image: a.image ? `img${n}` : null, interests: a.ints.map((i) => `i${i}`) }))
  }
  const prof = (id: string, username: string, fs: FollowDef[]): ProfileDef =>
    ({ id, source: 'tt', username, fullname: id, image: null, link: `l/${id}`, follows: fs })
  return {
    ds,
    profile: prof('p', 'p', follows),
    friends: friends.map((f, n) => prof(`f${n}`, f.name, f.follows)),
    month: formatMonth(parseMonth('2024-01') + w.month),
    query
  }
})

const Categories = Type.Array(CategorySchema)
const Diffs = Type.Array(DiffItemSchema)

t.test('engine output agrees with the naive model and keeps every invariant', async (t) => {
  // how often the interesting cases came up, so a generator change cannot hollow the test out
  const seen = { interests: 0, redFlags: 0, lost: 0, cutDiffs: 0, common: 0, red: 0, adjusted: 0, ties: 0 }
  fc.assert(fc.property(worldArb, ({ ds, profile, friends, month, query }) => {
    const { item, tree, diffs, friends: lists, friendInterests, sourceProfile } = computeProfile({ dataset: ds, profile, friends, month })
    const T = parseMonth(month)
    const fail = (what: string, detail?: unknown) => { throw new Error(`${what}: ${JSON.stringify(detail)}`) }

    // shapes
    if (!Value.Check(ReportItemSchema, item)) fail('ReportItem', [...Value.Errors(ReportItemSchema, item)].slice(0, 3))
    if (!Value.Check(Categories, tree)) fail('tree', [...Value.Errors(Categories, tree)].slice(0, 3))
    if (!Value.Check(Diffs, diffs)) fail('diffs', [...Value.Errors(Diffs, diffs)].slice(0, 3))

    // I_T and its shares against the model; shares sum to 1; top relative exactly 1
    const flat = tree.flatMap((c) => c.interests)
    const model = modelMonth(ds, profile.follows, T)
    if (flat.length !== model.size) fail('|I_T|', [flat.length, model.size])
    const maxOf = (m: Map<string, number>) => Math.max(...m.values())
    for (const i of flat) {
      if (!(Math.abs(i.share - (model.get(i.id) ?? NaN)) <= 1e-12)) fail('share', i.id)
      if (!(Math.abs(i.relative - i.share / maxOf(model)) <= 1e-12)) fail('relative', i.id)
    }
    if (flat.length > 0) {
      if (Math.abs(flat.reduce((s, i) => s + i.share, 0) - 1) > 1e-9) fail('shares sum')
      if (Math.abs(tree.reduce((s, c) => s + c.share, 0) - 1) > 1e-9) fail('category shares sum')
      if (item.topInterests[0].relative !== 1 || tree[0].relative !== 1) fail('top relative')
    }
    for (const i of [...flat, ...tree]) if (i.relative > 1 || i.relative <= 0) fail('relative range', i)

    // orderings
    for (const [a, b] of pairs(tree)) if (!ordered(a, b)) fail('category order', [a.id, b.id])
    for (const c of tree) for (const [a, b] of pairs(c.interests)) if (!ordered(a, b)) fail('interest order', [a.id, b.id])
    for (const c of tree) {
      for (const i of c.interests) {
        const carriers = profile.follows
          .filter((f) => activeIn(f, T) && ds.accounts.find((a) => a.id === f.accountId)?.interests.includes(i.id))
          .sort((x, y) => x.since === y.since ? compareText(x.accountId, y.accountId) : x.since < y.since ? 1 : -1)
        if (ids(i.follows ?? []).join() !== carriers.slice(0, 3).map((f) => f.accountId).join()) fail('followers', i.id)
      }
    }

    // previews are prefixes of the full lists
    const global = [...flat].sort((a, b) => ordered(a, b) ? -1 : 1)
    const strip = ({ follows: _f, redCatId: _r, ...rest }: Interest) => rest
    if (JSON.stringify(item.topInterests) !== JSON.stringify(global.slice(0, 10).map(strip))) fail('topInterests')
    const red = global.filter((i) => i.redCatId !== undefined).map(strip)
    if (JSON.stringify(item.redFlags ?? []) !== JSON.stringify(red)) fail('redFlags')
    if ((item.categories === undefined) !== (flat.length === 0)) fail('categories presence')
    const preview = (item.categories ?? []).flatMap((c) => c.interests)
    if (JSON.stringify(preview) !== JSON.stringify(flat.slice(0, 8))) fail('categories preview')
    if (item.categoriesCount !== tree.length || item.totalInterests !== flat.length) fail('counts')

    // diffs against the model, month by month
    const first = Math.min(...profile.follows.map((f) => parseMonth(f.since)))
    const expected: string[] = []
    for (let m = T; m > first; m--) {
      const now = modelMonth(ds, profile.follows, m)
      const before = modelMonth(ds, profile.follows, m - 1)
      const added = [...now.keys()].filter((i) => !before.has(i))
      const lost = [...before.keys()].filter((i) => !now.has(i))
      if (added.length + lost.length === 0) continue
      expected.push(formatMonth(m))
      const d = diffs.find((x) => x.date === formatMonth(m))
      if (d === undefined) fail('missing diff month', formatMonth(m))
      else {
        if (ids(d.new).sort().join() !== added.sort().join() || ids(d.lost).sort().join() !== lost.sort().join()) fail('diff sets', d.date)
        for (const i of d.new) {
          if (!(Math.abs(i.share - (now.get(i.id) as number)) <= 1e-12)) fail('new share', [d.date, i.id])
          if (!(Math.abs(i.relative - i.share / maxOf(now)) <= 1e-12)) fail('new relative', [d.date, i.id])
        }
        for (const i of d.lost) {
          if (!(Math.abs(i.share - (before.get(i.id) as number)) <= 1e-12)) fail('lost share', [d.date, i.id])
          if (!(Math.abs(i.relative - i.share / maxOf(before)) <= 1e-12)) fail('lost relative', [d.date, i.id])
        }
        for (const i of [...d.new, ...d.lost]) if (i.unactive !== !model.has(i.id)) fail('unactive', i.id)
        for (const [a, b] of [...pairs(d.new), ...pairs(d.lost)]) if (!ordered(a, b)) fail('diff order', d.date)
        if (d.totalNew !== d.new.length || d.totalLost !== d.lost.length) fail('totals', d.date)
      }
    }
    if (diffs.map((d) => d.date).join() !== expected.join()) fail('diff months', [diffs.map((d) => d.date), expected])
    const shown = item.interestDiffs?.items ?? []
    if ((item.interestDiffs === undefined) !== (diffs.length === 0)) fail('interestDiffs presence')
    if (shown.length !== Math.min(6, diffs.length)) fail('6 months')
    shown.forEach((d, n) => {
      const full = diffs[n]
      if (d.date !== full.date || d.totalNew !== full.new.length || d.totalLost !== full.lost.length) fail('preview totals')
      if (JSON.stringify(d.new) !== JSON.stringify(full.new.slice(0, 5)) || JSON.stringify(d.lost) !== JSON.stringify(full.lost.slice(0, 5))) fail('5 each')
    })

    // friends: counts against the model, orderings, paging
    for (const f of friends) {
      const theirs = [...modelMonth(ds, f.follows, T).keys()]
      const count = theirs.filter((i) => model.has(i)).length
      const redCount = theirs.filter((i) => ds.interests.find((x) => x.id === i)?.redFlagId != null).length
      const inCommon = lists.common.find((x) => x.id === f.id)
      const inRed = lists.redFlags.find((x) => x.id === f.id)
      if ((count > 0) !== (inCommon !== undefined) || (redCount > 0) !== (inRed !== undefined)) fail('friend lists', f.id)
      for (const x of [inCommon, inRed]) if (x !== undefined && (x.count !== count || x.redFlagsCount !== redCount)) fail('friend counts', f.id)
      // the interests behind the counts: the shared ones in the profile's order, the red flags with the friend's shares
      const kept = friendInterests.byFriend[f.id]
      if ((inCommon ?? inRed) === undefined) {
        if (kept !== undefined) fail('detail kept for an unlisted friend', f.id)
        continue
      }
      const shared = theirs.filter((i) => model.has(i))
      if (JSON.stringify([...kept.common].sort()) !== JSON.stringify(shared.sort())) fail('shared ids', { f: f.id, kept: kept.common, shared })
      for (const [a, b] of pairs(kept.common.map((id) => flat.find((x) => x.id === id)!))) if (!ordered(a, b)) fail('shared order', f.id)
      if (kept.redFlags.length !== redCount) fail('red-flag ids', f.id)
      const own = modelMonth(ds, f.follows, T)
      for (const [id, share] of kept.redFlags) if (!tied(share, own.get(id) ?? -1)) fail('red-flag share', { f: f.id, id })
      const named = kept.redFlags.map(([id, share]) => ({ id, share, name: ds.interests.find((x) => x.id === id)!.name }))
      for (const [a, b] of pairs(named)) if (!ordered(a, b)) fail('red-flag order', f.id)
    }
    const byText = (a: Friend, b: Friend) => compareText(a.username, b.username) || compareText(a.id, b.id)
    for (const [a, b] of pairs(lists.common)) {
      if (!(a.count > b.count || (a.count === b.count && (a.redFlagsCount > b.redFlagsCount || (a.redFlagsCount === b.redFlagsCount && byText(a, b) < 0))))) fail('common order')
    }
    for (const [a, b] of pairs(lists.redFlags)) {
      if (!(a.redFlagsCount > b.redFlagsCount || (a.redFlagsCount === b.redFlagsCount && (a.count > b.count || (a.count === b.count && byText(a, b) < 0))))) fail('red order')
    }
    const served = item.friends.sortByRedFlags ? lists.redFlags : lists.common
    if (JSON.stringify(item.friends.items) !== JSON.stringify(served.slice(0, 10))) fail('friends preview')

    const pageOut = friendsPage(lists, query, sourceProfile, ['tt'])
    if (!Value.Check(FriendsSchema, pageOut)) fail('Friends', [...Value.Errors(FriendsSchema, pageOut)].slice(0, 3))
    const requested = query.sortByRedFlags ?? lists.redFlags.length > 0
    const list = (r: boolean) => r ? lists.redFlags : lists.common
    const swap = query.offset === 0 && list(requested).length === 0 && list(!requested).length > 0
    const use = swap ? !requested : requested
    if (pageOut.sortByRedFlags !== use || pageOut.total !== list(use).length) fail('served list', query)
    if (JSON.stringify(pageOut.items) !== JSON.stringify(list(use).slice(query.offset, query.offset + query.limit))) fail('page items')
    if (pageOut.hasMore !== (query.offset + pageOut.items.length < pageOut.total)) fail('hasMore')
    if (('sortByRedFlagsAdjusted' in pageOut) !== (query.offset === 0) || (query.offset === 0 && pageOut.sortByRedFlagsAdjusted !== swap)) fail('adjusted')

    if (flat.length > 0) seen.interests++
    if (item.redFlags !== undefined) seen.redFlags++
    if (diffs.some((d) => d.lost.length > 0)) seen.lost++
    if (diffs.length > 6 || diffs.some((d) => d.new.length > 5 || d.lost.length > 5)) seen.cutDiffs++
    if (lists.common.length > 0) seen.common++
    if (lists.redFlags.length > 0) seen.red++
    if (swap) seen.adjusted++
    if (pairs(flat).some(([a, b]) => tied(a.share, b.share))) seen.ties++
  }), { numRuns: 400 })
  t.comment(JSON.stringify(seen))
  for (const [what, n] of Object.entries(seen)) t.ok(n > 0, `${what} came up (${n} of 400)`)
})
