// The interests behind a friend's two counts: which ids a report keeps per listed friend, their
// order, and how they resolve against the stored tree.
import t from '../tap.ts'
import { computeProfile, resolveFriendInterests, type ProfileDef } from '../../src/engine/index.ts'
import { account, cat, dataset, flag, follow, interest, profile } from './fixtures.ts'

// P follows a-xy and a-z: shares z 1/2, x 1/4, y 1/4, so P's interest order is z, x, y. z and the
// r's are red flags; c2 is synthetic (no badge).
const ds = dataset({
  categories: [cat('c'), { id: 'c2', name: 'Hidden', synthetic: true }],
  redFlags: [flag('rf', 'Adult')],
  interests: [interest('x', 'c'), interest('y', 'c2'), interest('z', 'c', 'rf'), interest('w', 'c'),
    interest('r1', 'c', 'rf', 'Alpha'), interest('r2', 'c', 'rf', 'Beta')],
  accounts: ['x', 'y', 'z', 'w', 'r1', 'r2'].map((i) => account(`a-${i}`, [i]))
    .concat(account('a-xy', ['x', 'y']), account('a-r1x', ['r1', 'x']), account('a-none', []))
})
const since = '2025-01-01'
const friend = (id: string, accounts: string[], extra: Partial<ProfileDef> = {}) =>
  profile(id, accounts.map((a) => follow(a, since)), { username: id, ...extra })
const p = profile('p', [follow('a-xy', since), follow('a-z', since)])
const friends = [
  friend('f-both', ['a-y', 'a-x', 'a-z']), // common y, x, z (order: P's), red z
  friend('f-red', ['a-r2', 'a-r1x', 'a-none']), // common x; red r2 1/2 over r1 1/4 (a-none spreads nothing)
  friend('f-tie', ['a-r2', 'a-r1']), // red r1 and r2 tied: by name Alpha, Beta
  friend('f-none', ['a-w']), // in no list: nothing kept
  profile('f-gone', [follow('a-x', '2024-01-01', '2025-06-01')], { username: 'gone' }) // ended before T
]
const month = '2025-06'

t.test('one entry per listed friend, the lists as long as the counts', async (t) => {
  const r = computeProfile({ dataset: ds, profile: p, friends, month })
  const listed = new Map([...r.friends.common, ...r.friends.redFlags].map((f) => [f.id, f]))
  t.same(Object.keys(r.friendInterests.byFriend).sort(), [...listed.keys()].sort(), 'exactly the listed friends')
  for (const [id, f] of listed) {
    const ids = r.friendInterests.byFriend[id]
    t.equal(ids.common.length, f.count, `${id}: count`)
    t.equal(ids.redFlags.length, f.redFlagsCount, `${id}: redFlagsCount`)
  }
  const by = r.friendInterests.byFriend
  t.same(by['f-both'].common, ['z', 'x', 'y'], "the report's interest order, not the friend's")
  t.same(by['f-both'].redFlags, [['z', 1 / 3, 1]])
  t.same(by['f-red'].common, ['x'])
  t.same(by['f-red'].redFlags, [['r2', 0.5, 1], ['r1', 0.25, 0.5]], "the friend's own shares, share desc")
  t.same(by['f-tie'].common, [])
  t.same(by['f-tie'].redFlags, [['r1', 0.5, 1], ['r2', 0.5, 1]], 'a tie goes by name')
  t.same(r.friendInterests.redFlagNames, { z: ['z', 'Adult'], r1: ['Alpha', 'Adult'], r2: ['Beta', 'Adult'] })
})

t.test('resolved against the tree: the profile\'s fields for shared interests, the friend\'s for red flags', async (t) => {
  const r = computeProfile({ dataset: ds, profile: p, friends, month })
  const both = resolveFriendInterests(r.tree, r.friendInterests.byFriend['f-both'], r.friendInterests.redFlagNames, 'ig')
  t.same(both.common, [
    { id: 'z', name: 'z', share: 0.5, relative: 1, unactive: false, category: 'Adult', source: 'ig' },
    { id: 'x', name: 'x', share: 0.25, relative: 0.5, unactive: false, category: 'c', source: 'ig' },
    { id: 'y', name: 'y', share: 0.25, relative: 0.5, unactive: false, source: 'ig' } // synthetic: no badge
  ])
  t.same(both.common.map((i) => i.id), r.item.topInterests.map((i) => i.id), "the same order as the report's interests")
  t.same(both.redFlags, [{ id: 'z', name: 'z', share: 1 / 3, relative: 1, unactive: false, category: 'Adult', source: 'ig' }])
  const red = resolveFriendInterests(r.tree, r.friendInterests.byFriend['f-red'], r.friendInterests.redFlagNames, 'ig')
  t.same(red.redFlags.map((i) => [i.name, i.category, i.relative]), [['Beta', 'Adult', 1], ['Alpha', 'Adult', 0.5]])
  // an id the tree or the names do not know (a hand-edited row): left out, or shown by its id
  const odd = resolveFriendInterests(r.tree, { common: ['nope', 'x'], redFlags: [['r9', 1, 1]] }, {}, 'ig')
  t.same(odd.common.map((i) => i.id), ['x'])
  t.same(odd.redFlags, [{ id: 'r9', name: 'r9', share: 1, relative: 1, unactive: false, source: 'ig' }])
})

t.test('no friends: nothing kept', async (t) => {
  const r = computeProfile({ dataset: ds, profile: p, friends: [], month })
  t.same(r.friendInterests, { byFriend: {}, redFlagNames: {} })
})
