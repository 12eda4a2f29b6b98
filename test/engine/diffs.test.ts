// The interest diffs by month and the interestDiffs preview of a report item, on hand-computed fixtures.
import t from '../tap.ts'
import { computeProfile } from '../../src/engine/index.ts'
import { account, cat, dataset, follow, interest, near, profile } from './fixtures.ts'

// Fixture D, T = 2025-04. Interests x, y, z in one category 'One'.
const dsD = dataset({
  categories: [cat('c1', 'One')],
  interests: [interest('x', 'c1', null, 'Xylo'), interest('y', 'c1', null, 'Yoga'), interest('z', 'c1', null, 'Zen')],
  accounts: [account('b1', ['x']), account('b2', ['x', 'y']), account('b3', ['z']), account('b4', [])]
})
const pD = profile('p-d', [
  follow('b4', '2024-10-05'), // no interests, but P's first follow: diffs start after 2024-10
  follow('b1', '2024-11-01', '2025-02-10'), // active Nov, Dec, Jan
  follow('b2', '2024-12-15'), // active from Dec
  follow('b3', '2025-01-20', '2025-03-01'), // active Jan, Feb
  follow('b1', '2025-03-05', '2025-03-06') // same-month since/until: never active
])

t.test('4.6 new and lost month by month, newest first', async (t) => {
  const { diffs, item } = computeProfile({ dataset: dsD, profile: pD, friends: [], month: '2025-04' })
  // 2024-11: I = {x} (b1), I_Oct = {}      -> new x: total 1, w(x) = 1, share 1, relative 1
  // 2024-12: I = {x, y} (b1, b2)           -> new y: total 2, w(x) = 1.5, w(y) = .5 -> share .25, relative 1/3
  // 2025-01: I = {x, y, z} (b1, b2, b3)    -> new z: total 3, w(x) = 1.5 -> .5 max, w(z) = 1 -> 1/3, relative 2/3
  // 2025-02: b1 ended, x still via b2      -> no change, skipped
  // 2025-03: b3 ended -> lost z, weighed in 2025-02: total 2 (b2, b3), w(z) = 1 -> share .5, w(x) = w(y) = .5
  //          -> .25; max .5 so relative 1
  // 2025-04: nothing. I_T = {x, y}: z is unactive wherever it appears
  t.same(diffs.map((d) => [d.date, d.new.map((i) => i.id), d.lost.map((i) => i.id), d.totalNew, d.totalLost]), [
    ['2025-03', [], ['z'], 0, 1],
    ['2025-01', ['z'], [], 1, 0],
    ['2024-12', ['y'], [], 1, 0],
    ['2024-11', ['x'], [], 1, 0]
  ])
  const [mar, jan, dec, nov] = diffs
  t.same([mar.lost[0].share, mar.lost[0].relative, mar.lost[0].unactive], [0.5, 1, true], 'lost: shares of the month before')
  t.ok(near(jan.new[0].share, 1 / 3))
  t.ok(near(jan.new[0].relative, 2 / 3))
  t.equal(jan.new[0].unactive, true, 'z is not in I_T')
  t.same([dec.new[0].share, dec.new[0].relative, dec.new[0].unactive], [0.25, 0.25 / 0.75, false])
  t.same([nov.new[0].share, nov.new[0].relative], [1, 1])
  t.same(nov.new[0], { id: 'x', name: 'Xylo', share: 1, relative: 1, unactive: false, category: 'One', source: 'ig' },
    'diff interests carry no follows or redCatId')
  t.same(item.interestDiffs, { items: diffs }, 'under 6 months and 5 interests: the preview is everything')
})

t.test('4.6 the first follow month is the baseline, whatever the account', async (t) => {
  const p = profile('p', [follow('b1', '2024-11-01')])
  const { diffs } = computeProfile({ dataset: dsD, profile: p, friends: [], month: '2025-04' })
  t.same(diffs, [], 'the month of the first follow itself is never a change')
  const none = computeProfile({ dataset: dsD, profile: profile('p', [follow('b1', '2025-05-01')]), friends: [], month: '2025-04' })
  t.same(none.diffs, [], 'follows after T: nothing yet')
  t.equal(none.item.totalInterests, 0)
})

t.test('4.6 new and lost in one month, 4.2 order inside each list', async (t) => {
  const ds = dataset({
    categories: [cat('c')],
    interests: ['p', 'q', 'r', 's', 't'].map((id) => interest(id, 'c')),
    accounts: [account('u1', ['p', 'q']), account('u2', ['r']), account('u3', ['s', 't']), account('u4', ['s'])]
  })
  const p = profile('p', [
    follow('u1', '2025-01-01', '2025-02-01'),
    follow('u2', '2025-01-01'),
    follow('u3', '2025-02-01'),
    follow('u4', '2025-02-01')
  ])
  const { diffs } = computeProfile({ dataset: ds, profile: p, friends: [], month: '2025-02' })
  // Feb: u2 (r), u3 (s, t), u4 (s): total 3; w(s) = 1/2 + 1 = 1.5 -> .5, w(t) = .5 -> 1/6, r 1/3
  // new [s, t] by share; Jan (u1, u2: total 2): p = q = 1/4, r = 1/2 -> lost [p, q] by name
  t.same(diffs.length, 1)
  t.same(diffs[0].new.map((i) => [i.id, i.share, i.relative]), [['s', 0.5, 1], ['t', 0.5 / 3, 1 / 3]])
  t.same(diffs[0].lost.map((i) => [i.id, i.share, i.relative, i.unactive]), [['p', 0.25, 0.5, true], ['q', 0.25, 0.5, true]])
})

t.test('4.4 interestDiffs preview: 6 newest months, 5 interests each, full totals', async (t) => {
  // Jan: base q0. Feb..Jul: one new interest a month (m2..m7). Aug: six new (n1..n6, n6 with two
  // followers so it leads). Sep: the six n-accounts end -> six lost. T = Sep: 8 months of change.
  const months = ['02', '03', '04', '05', '06', '07']
  const ns = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']
  const ds = dataset({
    categories: [cat('c')],
    interests: ['q0', ...months.map((m) => `m${m}`), ...ns].map((id) => interest(id, 'c')),
    accounts: [account('q0', ['q0']), ...months.map((m) => account(`m${m}`, [`m${m}`])),
      ...ns.map((n) => account(n, [n])), account('n6b', ['n6'])]
  })
  const p = profile('p', [
    follow('q0', '2024-01-01'),
    ...months.map((m) => follow(`m${m}`, `2024-${m}-01`)),
    ...ns.map((n) => follow(n, '2024-08-01', '2024-09-01')),
    follow('n6b', '2024-08-01', '2024-09-01')
  ])
  const { item, diffs } = computeProfile({ dataset: ds, profile: p, friends: [], month: '2024-09' })
  t.same(diffs.map((d) => d.date), ['2024-09', '2024-08', '2024-07', '2024-06', '2024-05', '2024-04', '2024-03', '2024-02'])
  t.same(diffs[1].new.map((i) => i.id), ['n6', 'n1', 'n2', 'n3', 'n4', 'n5'], 'n6 (2/14) before the 1/14 ties by name')
  t.same(diffs[0].lost.map((i) => i.id), ['n6', 'n1', 'n2', 'n3', 'n4', 'n5'], 'lost weighed in August')
  const preview = item.interestDiffs?.items ?? []
  t.same(preview.map((d) => d.date), diffs.slice(0, 6).map((d) => d.date))
  t.same(preview[1].new.map((i) => i.id), ['n6', 'n1', 'n2', 'n3', 'n4'])
  t.same(preview[0].lost.map((i) => i.id), ['n6', 'n1', 'n2', 'n3', 'n4'])
  t.equal(preview[1].totalNew, 6, 'the total stays the full count')
  t.equal(preview[0].totalLost, 6)
  t.equal(diffs[1].new.length, 6, 'the full list is not touched by the preview')
})
