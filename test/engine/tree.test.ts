// The interest tree of a report item on hand-computed fixtures: shares, order, tree, badges, followers, previews.
import t from '../tap.ts'
import { computeProfile, type ProfileInput } from '../../src/engine/index.ts'
import { account, cat, dataset, flag, follow, interest, near, profile } from './fixtures.ts'

// Fixture A, report month T = 2025-06.
const dsA = dataset({
  categories: [cat('c-sport', 'Sport'), cat('c-music', 'Music'), cat('c-misc', 'Misc', true)],
  redFlags: [flag('rf-v', 'Violence')],
  interests: [
    interest('i-box', 'c-sport', 'rf-v', 'Boxing'),
    interest('i-run', 'c-sport', null, 'Running'),
    interest('i-jazz', 'c-music', null, 'Jazz'),
    interest('i-memes', 'c-misc', null, 'Memes')
  ],
  accounts: [
    account('a1', ['i-box', 'i-run']),
    account('a2', ['i-run'], null),
    account('a3', ['i-jazz', 'i-memes', 'i-run']),
    account('a4', []),
    account('a5', ['i-jazz'])
  ]
})
const pA = profile('p-a', [
  follow('a1', '2025-01-10'), // active in June
  follow('a2', '2025-06-30'), // since in June: active in June
  follow('a3', '2024-12-01', '2025-07-01'), // until in July > June: active
  follow('a4', '2025-01-01'), // no interests: ignored, not in total
  follow('a5', '2025-02-01', '2025-06-15') // until in June: not active in June
], { image: null })
const inputA: ProfileInput = { dataset: dsA, profile: pA, friends: [], month: '2025-06' }

t.test('4.1/4.2 shares, relatives and order in month T', async (t) => {
  const { item } = computeProfile(inputA)
  // active follows with k >= 1 in June: a1 (k=2), a2 (k=1), a3 (k=3) -> total = 3
  // w(run) = 1/2 + 1 + 1/3 = 11/6 -> share 11/18; w(box) = 1/2 -> 1/6;
  // w(jazz) = w(memes) = 1/3 -> 1/9 each (a5 ended in June and does not count)
  // relative: run 1, box (1/6)/(11/18) = 3/11, jazz = memes = (1/9)/(11/18) = 2/11
  // order: run, box, then the jazz/memes tie by name: Jazz < Memes
  const top = item.topInterests
  t.same(top.map((i) => i.id), ['i-run', 'i-box', 'i-jazz', 'i-memes'])
  const expected = [[11 / 18, 1], [1 / 6, 3 / 11], [1 / 9, 2 / 11], [1 / 9, 2 / 11]]
  top.forEach((i, n) => {
    t.ok(near(i.share, expected[n][0]), `${i.id} share ${i.share}`)
    t.ok(near(i.relative, expected[n][1]), `${i.id} relative ${i.relative}`)
  })
  t.equal(top[0].relative, 1, 'the top relative is exactly 1')
  t.equal(item.totalInterests, 4)
  t.same(top.map((i) => i.category), ['Sport', 'Violence', 'Music', undefined],
    'badge: parent category; red-flag label wins; synthetic category omitted')
  t.notOk('category' in top[3], 'omitted, not undefined')
  for (const i of top) {
    t.notOk('follows' in i || 'redCatId' in i, 'topInterests carry no follows/redCatId')
    t.equal(i.unactive, false)
    t.equal(i.source, 'ig')
  }
  t.same(item.redFlags?.map((i) => [i.id, i.category]), [['i-box', 'Violence']], 'every red-flag interest, bucket label')
  t.notOk('redCatId' in (item.redFlags?.[0] ?? {}), 'redFlags items are outside a category: no redCatId')
})

t.test('4.3 the category tree', async (t) => {
  const { item, tree } = computeProfile(inputA)
  // category share: sport = 11/18 + 1/6 = 7/9; misc = 1/9; music = 1/9
  // order: sport, then misc/music tie by name: Misc < Music; relative: 1, 1/7, 1/7
  t.same(tree.map((c) => c.id), ['c-sport', 'c-misc', 'c-music'])
  t.ok(near(tree[0].share, 7 / 9))
  t.equal(tree[0].relative, 1)
  t.ok(near(tree[1].relative, 1 / 7))
  t.ok(near(tree[2].relative, 1 / 7))
  t.same(tree.map((c) => c.interests.map((i) => i.id)), [['i-run', 'i-box'], ['i-memes'], ['i-jazz']])
  t.equal(item.categoriesCount, 3)
  for (const c of tree) {
    t.equal(c.unactive, false)
    t.equal(c.source, 'ig')
    t.notOk('category' in c, 'a category has no badge of its own')
  }
  const box = tree[0].interests[1]
  t.equal(box.redCatId, 'rf-v', 'redCatId on a red-flag interest inside a category')
  t.notOk('redCatId' in tree[0].interests[0], 'and absent on the others')
  t.equal(box.share, item.topInterests[1].share, 'same numbers in the tree and the previews')
  // followers of Running active in June: a2 (since 06-30), a1 (01-10), a3 (2024-12-01): latest first
  t.same(tree[0].interests[0].follows?.map((f) => f.id), ['a2', 'a1', 'a3'])
  t.same(tree[0].interests[0].follows?.[0], {
    image: '', id: 'a2', username: 'a2_u', fullname: 'a2 Full', imageNotLoaded: true
  }, 'an account without image: image "" and imageNotLoaded')
  t.same(tree[0].interests[0].follows?.[1], {
    image: 'https://img/a1', id: 'a1', username: 'a1_u', fullname: 'a1 Full', imageNotLoaded: false
  })
  t.same(tree[2].interests[0].follows?.map((f) => f.id), ['a3'], 'a5 (ended in June) is not a follower of Jazz')
  t.same(item.categories, tree, 'fewer than 8 interests: the preview is the whole tree')
})

t.test('4.4 profile fields', async (t) => {
  const { item, sourceProfile } = computeProfile(inputA)
  const fields = { image: '', id: 'p-a', username: 'p-a_u', fullname: 'p-a Full', imageNotLoaded: true, source: 'ig', link: 'https://net/p-a' }
  t.same(sourceProfile, fields)
  t.same(Object.keys(item).slice(0, 7), Object.keys(fields), 'the profile fields come first, in spec order')
  t.same(item.friends.sourceProfile, fields)
  const withImage = computeProfile({ ...inputA, profile: { ...pA, image: 'https://img/p' } }).item
  t.equal(withImage.image, 'https://img/p')
  t.equal(withImage.imageNotLoaded, false)
})

t.test('followers: latest since first, then account id, at most 3', async (t) => {
  const ds = dataset({
    categories: [cat('c')],
    interests: [interest('q', 'c')],
    accounts: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => account(id, ['q']))
  })
  const p = profile('p', [
    follow('c1', '2025-03-01'),
    follow('c3', '2025-05-01'),
    follow('c2', '2025-05-01'), // same day as c3: account id decides, c2 first
    follow('c4', '2025-01-01'),
    follow('c5', '2025-05-20', '2025-06-02'), // the latest since, but not active in June
    follow('c6', '2025-07-01') // starts after T
  ])
  const { tree } = computeProfile({ dataset: ds, profile: p, friends: [], month: '2025-06' })
  t.same(tree[0].interests[0].follows?.map((f) => f.id), ['c2', 'c3', 'c1'], 'c4 is the 4th: cut')
})

// Fixture B: 13 interests in 3 categories, every account k = 1, so w = number of followers.
// B: b1..b5 = 9, 8, 7, 6, 5 (35); A: a1 = 10, a2 = 4, a3 = 1, a4 = 1 (16); C: c1..c4 = 3, 2, 1, 1 (7)
// total = 58; category order B (35/58), A (16/58), C (7/58)
const weightsB: Record<string, number> = { b1: 9, b2: 8, b3: 7, b4: 6, b5: 5, a1: 10, a2: 4, a3: 1, a4: 1, c1: 3, c2: 2, c3: 1, c4: 1 }
const dsB = dataset({
  categories: [cat('cA', 'A'), cat('cB', 'B'), cat('cC', 'C')],
  interests: Object.keys(weightsB).map((id) => interest(id, `c${id[0].toUpperCase()}`)),
  accounts: Object.entries(weightsB).flatMap(([id, w]) => Array.from({ length: w }, (_, n) => account(`${id}-${n}`, [id])))
})
const pB = profile('p-b', dsB.accounts.map((a) => follow(a.id, '2025-01-01')))

t.test('4.4 the 8-interest preview across categories and the top 10', async (t) => {
  const { item, tree } = computeProfile({ dataset: dsB, profile: pB, friends: [], month: '2025-06' })
  t.same(tree.map((c) => c.name), ['B', 'A', 'C'])
  t.ok(near(tree[0].share, 35 / 58))
  t.ok(near(tree[1].relative, 16 / 35))
  t.ok(near(tree[2].relative, 7 / 35))
  t.same(tree[1].interests.map((i) => i.id), ['a1', 'a2', 'a3', 'a4'], 'a3/a4 tie (1/58 each) by name')
  // display order: b1..b5 (5), a1 a2 a3 (3) = 8: A is cut to 3, C left empty and dropped
  t.same(item.categories?.map((c) => [c.name, c.interests.map((i) => i.id)]), [
    ['B', ['b1', 'b2', 'b3', 'b4', 'b5']],
    ['A', ['a1', 'a2', 'a3']]
  ])
  t.equal(item.categories?.[1].share, tree[1].share, 'preview categories keep the full-tree share')
  t.equal(item.categoriesCount, 3)
  t.equal(item.totalInterests, 13)
  // 4.2 over all interests: a1 10, b1 9 … b5 5, a2 4, c1 3, c2 2, then the 1/58 ties a3 a4 c3 c4
  t.same(item.topInterests.map((i) => i.id), ['a1', 'b1', 'b2', 'b3', 'b4', 'b5', 'a2', 'c1', 'c2', 'a3'])
  t.equal(item.topInterests[0].relative, 1)
  t.ok(near(item.topInterests[1].relative, 9 / 10))
  t.ok(near(item.topInterests[1].share, 9 / 58))
  t.notOk('redFlags' in item, 'no red-flag interest: field omitted')
  const followers = tree[0].interests[0].follows ?? []
  t.same(followers.map((f) => f.id), ['b1-0', 'b1-1', 'b1-2'], 'same since: by account id, 3 of 9')
})

t.test('dataset gaps: unknown accounts, interests and buckets', async (t) => {
  const ds = dataset({
    categories: [cat('c', 'C')],
    redFlags: [flag('rf')],
    interests: [
      interest('x', 'c'),
      interest('y', 'c', 'rf-unknown'), // unknown bucket: not a red flag
      interest('lost', 'c-unknown') // unknown category: dropped
    ],
    accounts: [account('a', ['x', 'x', 'y', 'nope', 'lost'])] // -> [x, y], k = 2
  })
  const p = profile('p', [follow('a', '2025-01-01'), follow('ghost', '2025-01-01')])
  const { item } = computeProfile({ dataset: ds, profile: p, friends: [], month: '2025-02' })
  t.same(item.topInterests.map((i) => [i.id, i.share, i.category]), [['x', 0.5, 'C'], ['y', 0.5, 'C']],
    'k counts known distinct interests; the ghost account is ignored like an account without interests')
  t.notOk('redFlags' in item)
})
