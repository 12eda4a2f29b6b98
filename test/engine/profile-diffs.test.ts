// profileDiffs: one profile's diffs without friends, equal to what computeReport serves for that
// profile (friends and other profiles change nothing in a profile's diffs), and the red-flag ids.
import t from '../tap.ts'
import fc from 'fast-check'
import { computeReport, formatMonth, parseMonth, profileDiffs, redFlagInterestIds, type Dataset, type FollowDef, type ProfileDef, type Source } from '../../src/engine/index.ts'
import { account, cat, dataset, flag, follow, interest, profile } from './fixtures.ts'

const date = (m: number, d: number) => `${formatMonth(parseMonth('2024-01') + m)}-${String(d).padStart(2, '0')}`
const followArb = (nAccounts: number) => fc.record({
  a: fc.nat(nAccounts - 1), since: fc.nat(17), day: fc.integer({ min: 1, max: 28 }), len: fc.option(fc.nat(8), { nil: null })
}).map(({ a, since, day, len }): FollowDef => ({ accountId: `a${a}`, since: date(since, day), until: len === null ? null : date(since + len, day) }))

const worldArb = fc.record({
  nFlags: fc.nat(2),
  interests: fc.array(fc.record({ cat: fc.nat(2), flag: fc.nat(3) }), { minLength: 1, maxLength: 10 }),
  accounts: fc.array(fc.array(fc.nat(9), { maxLength: 4 }), { minLength: 1, maxLength: 10 }),
  month: fc.nat(24)
}).chain((w) => fc.record({
  w: fc.constant(w),
  profiles: fc.array(fc.record({
    source: fc.constantFrom<Source>('ig', 'fb', 'tt'),
    follows: fc.array(followArb(w.accounts.length), { maxLength: 30 }),
    friends: fc.array(fc.array(followArb(w.accounts.length), { maxLength: 5 }), { maxLength: 3 })
  }), { minLength: 1, maxLength: 3 })
})).map(({ w, profiles }) => {
  const ds: Dataset = {
    categories: [0, 1, 2].map((n) => ({ id: `c${n}`, name: `C${n}`, synthetic: n === 2 })),
    redFlags: Array.from({ length: w.nFlags }, (_, n) => ({ id: `rf${n}`, label: `Flag ${n}` })),
    interests: w.interests.map((i, n) => ({ id: `i${n}`, name: `I${n % 4}`, categoryId: `c${i.cat}`, redFlagId: i.flag < w.nFlags ? `rf${i.flag}` : null })),
    accounts: w.accounts.map((ints, n) => ({ id: `a${n}`, username: `u${n}`, fullname: `U${n}`, image: null, interests: ints.map((i) => `i${i}`) }))
  }
  const prof = (id: string, source: Source, fs: FollowDef[]): ProfileDef => ({ id, source, username: id, fullname: id, image: null, link: `l/${id}`, follows: fs })
  return {
    ds,
    month: formatMonth(parseMonth('2024-01') + w.month),
    profiles: profiles.map((p, n) => ({ profile: prof(`p${n}`, p.source, p.follows), friends: p.friends.map((f, k) => prof(`f${n}-${k}`, p.source, f)) }))
  }
})

t.test('profileDiffs equals computeReport diffs for each profile', async (t) => {
  let changes = 0
  fc.assert(fc.property(worldArb, ({ ds, month, profiles }) => {
    const report = computeReport({ dataset: ds, month, profiles })
    for (const r of report) {
      const p = profiles.find((x) => x.profile.id === r.item.id)!.profile
      const alone = profileDiffs({ dataset: ds, profile: p, month })
      changes += alone.length
      if (JSON.stringify(alone) !== JSON.stringify(r.diffs)) throw new Error(`${p.id}: ${JSON.stringify(alone)} != ${JSON.stringify(r.diffs)}`)
    }
  }), { numRuns: 300, seed: 42 })
  t.ok(changes > 100, 'the generator makes months with changes')
})

t.test('unactive is relative to the month given, and later months are not listed', async (t) => {
  const ds = dataset({ categories: [cat('c')], interests: [interest('x', 'c'), interest('y', 'c')], accounts: [account('b1', ['x']), account('b2', ['y'])] })
  const p = profile('p', [follow('b1', '2025-01-02', '2025-03-01'), follow('b2', '2025-02-02')])
  t.same(profileDiffs({ dataset: ds, profile: p, month: '2025-02' }).map((d) => [d.date, d.new.map((i) => [i.id, i.unactive])]), [['2025-02', [['y', false]]]])
  const later = profileDiffs({ dataset: ds, profile: p, month: '2025-05' })
  t.same(later.map((d) => [d.date, d.new.map((i) => [i.id, i.unactive]), d.lost.map((i) => [i.id, i.unactive])]),
    [['2025-03', [], [['x', true]]], ['2025-02', [['y', false]], []]])
})

t.test('redFlagInterestIds: interests whose red flag the dataset defines', async (t) => {
  const ds = dataset({
    categories: [cat('c')],
    redFlags: [flag('rf')],
    interests: [interest('x', 'c', 'rf'), interest('y', 'c'), interest('z', 'c', 'missing'), interest('w', 'nocat', 'rf')]
  })
  t.same([...redFlagInterestIds(ds)], ['x'])
})
