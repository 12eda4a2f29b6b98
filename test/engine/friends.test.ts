// The two friend lists, their order, and the paging rules of the Friends object.
import t from '../tap.ts'
import {
  availableSources, computeProfile, computeReport, friendsPage, withAvailableSources,
  type FriendLists, type ProfileDef
} from '../../src/engine/index.ts'
import type { Friend } from '../../schemas/report.ts'
import { account, cat, dataset, flag, follow, interest, profile } from './fixtures.ts'

// P has I_T = {x, y, z}; z and the r's are red flags. T = 2025-06.
const ds = dataset({
  categories: [cat('c')],
  redFlags: [flag('rf', 'Adult')],
  interests: [interest('x', 'c'), interest('y', 'c'), interest('z', 'c', 'rf'), interest('w', 'c'),
    interest('r1', 'c', 'rf'), interest('r2', 'c', 'rf')],
  accounts: ['x', 'y', 'z', 'w', 'r1', 'r2'].map((i) => account(`a-${i}`, [i])).concat(account('a-xy', ['x', 'y']))
})
const since = '2025-01-01'
const friend = (id: string, username: string, interests: string[], extra: Partial<ProfileDef> = {}) =>
  profile(id, interests.map((i) => follow(`a-${i}`, since)), { username, ...extra })
const p = profile('p', [follow('a-xy', since), follow('a-z', since)])
const friends = [
  friend('p-f1', 'alice', ['x', 'y']), // count 2, red 0
  friend('p-f2', 'bob', ['x', 'r1']), // count 1, red 1
  friend('p-f3', 'carol', ['r1', 'r2']), // count 0, red 2
  friend('p-f4', 'dave', ['w']), // neither: in no list
  friend('p-f5', 'erin', ['x', 'z'], { image: null }), // count 2, red 1 (z is common and red)
  profile('p-f6', [follow('a-y', since), follow('ghost', since)], { username: 'abe' }), // count 1, red 0; unknown account ignored
  friend('p-f0', 'bob', ['x', 'r2']), // count 1, red 1: ties with p-f2, id decides
  profile('p-f8', [follow('a-x', '2024-01-01', '2025-06-01'), follow('a-xy', since, '2025-06-30')], { username: 'gone' })
  // p-f8: both follows ended by June (until month <= T): no interests, in no list
]

t.test('4.5 the common and red-flag lists', async (t) => {
  const { friends: lists, item } = computeProfile({ dataset: ds, profile: p, friends, month: '2025-06' })
  // common: count desc, redFlagsCount desc, username, id
  t.same(lists.common.map((f) => [f.id, f.count, f.redFlagsCount]), [
    ['p-f5', 2, 1], ['p-f1', 2, 0], ['p-f0', 1, 1], ['p-f2', 1, 1], ['p-f6', 1, 0]
  ])
  // red flags: redFlagsCount desc, count desc, username, id
  t.same(lists.redFlags.map((f) => [f.id, f.redFlagsCount, f.count]), [
    ['p-f3', 2, 0], ['p-f5', 1, 2], ['p-f0', 1, 1], ['p-f2', 1, 1]
  ])
  t.same(lists.common[0], {
    image: '', id: 'p-f5', username: 'erin', fullname: 'p-f5 Full', imageNotLoaded: true,
    source: 'ig', link: 'https://net/p-f5', count: 2, redFlagsCount: 1
  })
  // the item's friends: default sort = hasRedFlags = true, offset 0, limit 10
  t.same(item.friends.items.map((f) => f.id), lists.redFlags.map((f) => f.id))
  t.same({ ...item.friends, items: undefined, sourceProfile: undefined }, {
    items: undefined, hasMore: false, total: 4, sourceProfile: undefined, sortByRedFlagsDefault: true,
    sortByRedFlags: true, hasCommonInterests: true, hasRedFlags: true, sortByRedFlagsAdjusted: false,
    availableSources: ['ig']
  })
})

const f = (id: string): Friend => ({
  image: '', id, username: id, fullname: id, imageNotLoaded: true, source: 'ig', link: '', count: 1, redFlagsCount: 1
})
const sp = computeProfile({ dataset: ds, profile: p, friends: [], month: '2025-06' }).sourceProfile
const page = (lists: FriendLists, sortByRedFlags: boolean | undefined, offset: number, limit: number) =>
  friendsPage(lists, { sortByRedFlags, offset, limit }, sp, ['ig', 'tt'])

t.test('4.5 paging: total, items, hasMore, sortByRedFlagsAdjusted only at offset 0', async (t) => {
  const lists = { common: ['c1', 'c2', 'c3', 'c4', 'c5'].map(f), redFlags: ['r1', 'r2'].map(f) }
  const first = page(lists, false, 0, 2)
  t.same([first.items.map((i) => i.id), first.total, first.hasMore, first.sortByRedFlags], [['c1', 'c2'], 5, true, false])
  t.equal(first.sortByRedFlagsAdjusted, false, 'present (false) on an offset-0 page')
  t.equal(first.sortByRedFlagsDefault, true)
  t.same(first.availableSources, ['ig', 'tt'])
  t.equal(first.sourceProfile, sp)
  const middle = page(lists, false, 2, 2)
  t.same([middle.items.map((i) => i.id), middle.hasMore], [['c3', 'c4'], true])
  t.notOk('sortByRedFlagsAdjusted' in middle, 'absent on later pages')
  const last = page(lists, false, 4, 2)
  t.same([last.items.map((i) => i.id), last.hasMore, last.total], [['c5'], false, 5], 'offset + items = total')
  const beyond = page(lists, false, 9, 2)
  t.same([beyond.items, beyond.hasMore, beyond.total], [[], false, 5])
  const byDefault = page(lists, undefined, 0, 10)
  t.same([byDefault.sortByRedFlags, byDefault.total, byDefault.items.map((i) => i.id)], [true, 2, ['r1', 'r2']],
    'no sort asked: the default (hasRedFlags)')
})

t.test('4.5 adjusted sort: the requested list is empty, the other is not', async (t) => {
  const onlyRed = { common: [], redFlags: ['r1', 'r2', 'r3'].map(f) }
  const adjusted = page(onlyRed, false, 0, 2)
  t.same([adjusted.sortByRedFlags, adjusted.sortByRedFlagsAdjusted, adjusted.total, adjusted.hasMore], [true, true, 3, true])
  t.same([adjusted.hasCommonInterests, adjusted.hasRedFlags, adjusted.sortByRedFlagsDefault], [false, true, true])
  const later = page(onlyRed, false, 2, 2)
  t.same([later.sortByRedFlags, later.total, later.items, later.hasMore], [false, 0, [], false], 'no swap after offset 0')
  t.notOk('sortByRedFlagsAdjusted' in later)
  const onlyCommon = { common: ['c1'].map(f), redFlags: [] }
  const swapped = page(onlyCommon, true, 0, 10)
  t.same([swapped.sortByRedFlags, swapped.sortByRedFlagsAdjusted, swapped.total], [false, true, 1])
  const byDefault = page(onlyCommon, undefined, 0, 10)
  t.same([byDefault.sortByRedFlags, byDefault.sortByRedFlagsAdjusted, byDefault.sortByRedFlagsDefault], [false, false, false])
  const none = page({ common: [], redFlags: [] }, true, 0, 10)
  t.same([none.sortByRedFlags, none.sortByRedFlagsAdjusted, none.total, none.hasMore, none.items], [true, false, 0, false, []],
    'both empty: nothing to swap to')
})

t.test('availableSources spans the report, in source order', async (t) => {
  const empty = { common: [], redFlags: [] }
  const some = { common: [f('x')], redFlags: [] }
  const red = { common: [], redFlags: [f('x')] }
  t.same(availableSources([{ source: 'li', friends: some }, { source: 'fb', friends: empty }, { source: 'tt', friends: red }]), ['tt', 'li'])
  t.same(availableSources([]), [])

  const lonely = profile('p-tt', [follow('a-x', since)], { source: 'tt' })
  const results = computeReport({
    dataset: ds,
    month: '2025-06',
    profiles: [{ profile: lonely, friends: [] }, { profile: { ...p, source: 'fb' }, friends }]
  })
  t.same(results.map((r) => r.item.source), ['fb', 'tt'], 'items in source order')
  t.same(results.map((r) => r.item.friends.availableSources), [['fb'], ['fb']], 'every item sees the whole report')
  const alone = computeProfile({ dataset: ds, profile: lonely, friends: [], month: '2025-06' })
  t.same(alone.item.friends.availableSources, [], 'one profile without friends: none')
  const patched = withAvailableSources(alone, ['ig'])
  t.same(patched.item.friends.availableSources, ['ig'])
  t.same(alone.item.friends.availableSources, [], 'the original result is not mutated')
  const given = computeProfile({ dataset: ds, profile: lonely, friends: [], month: '2025-06', availableSources: ['ig', 'li'] })
  t.same(given.item.friends.availableSources, ['ig', 'li'])
})
