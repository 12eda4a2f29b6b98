import t from '../tap.ts'
import { compareText, dataMonthOf, formatMonth, parseMonth, reportMonth, toMonth } from '../../src/engine/index.ts'
import { activeRange, isActiveIn } from '../../src/engine/months.ts'
import {
  addFollow, compareRanked, createTally, monthShares, relativeOf, removeFollow, sameShare
} from '../../src/engine/weights.ts'
import { follow } from './fixtures.ts'

t.test('months are year * 12 + month - 1', async (t) => {
  t.equal(parseMonth('2025-01'), 2025 * 12)
  t.equal(parseMonth('2025-03-14'), 2025 * 12 + 2, 'a day form reads its month')
  t.equal(parseMonth('2025-12-31T23:59:59Z'), 2025 * 12 + 11, 'text, so no time zone moves it')
  t.equal(parseMonth('2025-03') - parseMonth('2024-12'), 3)
  t.equal(formatMonth(parseMonth('2025-03-14')), '2025-03')
  t.equal(formatMonth(parseMonth('0999-01')), '0999-01', 'padded to 4 + 2 digits')
  t.equal(toMonth('2025-06'), parseMonth('2025-06'))
  t.equal(toMonth(new Date('2025-06-30T23:30:00Z')), parseMonth('2025-06'), 'a Date is read in UTC')
  t.equal(toMonth(new Date('2025-07-01T00:00:00Z')), parseMonth('2025-07'))
  for (const bad of ['2025-13', '2025-00', '25-01', '2025/01', 'x025-01', '2025-1', '']) {
    t.throws(() => parseMonth(bad), RangeError, bad)
  }
  t.throws(() => toMonth(new Date('nope')), RangeError)
})

t.test('a follow is active from the month of since to the month before until', async (t) => {
  const f = follow('a', '2025-03-31', '2025-06-01')
  const active = ['2025-02', '2025-03', '2025-04', '2025-05', '2025-06'].map((m) => isActiveIn(f, parseMonth(m)))
  t.same(active, [false, true, true, true, false])
  t.same(activeRange(f), { start: parseMonth('2025-03'), end: parseMonth('2025-06') })
  t.equal(activeRange(follow('a', '2025-03-01')).end, Infinity, 'until null: still following')
  t.notOk(isActiveIn(follow('a', '2025-03-01', '2025-03-20'), parseMonth('2025-03')), 'same-month until: never active')
  const absent = { accountId: 'a', since: '2025-03-01' } as unknown as Parameters<typeof isActiveIn>[0]
  t.ok(isActiveIn(absent, parseMonth('2030-01')), 'until left out counts as null')
})

t.test('text order is code-point order, not UTF-16 and not locale', async (t) => {
  const astral = '\u{1F600}' // a surrogate pair in UTF-16
  const highBmp = '\uFFFD'
  t.ok(astral < highBmp, 'JS < puts the astral character first (code units)')
  t.ok(compareText(highBmp, astral) < 0, 'code points put U+FFFD first')
  t.ok(compareText('\u{10000}', '\u{10001}') < 0, 'two astral characters')
  t.ok(compareText('Zebra', 'apple') < 0, 'upper case before lower case, unlike localeCompare')
  t.ok(compareText('ab', 'abc') < 0, 'a prefix first')
  t.ok(compareText('abc', 'ab') > 0)
  t.equal(compareText('same', 'same'), 0)
  t.ok(compareText('a\uD7FF', 'a\uE000') < 0, 'below the surrogate range stays below U+E000')
})

t.test('4.1 weights from integer counts: exact, and history does not matter', async (t) => {
  const tally = createTally()
  addFollow(tally, ['x', 'y']) // k = 2: x += 1/2, y += 1/2
  addFollow(tally, ['x']) // k = 1: x += 1
  addFollow(tally, ['x', 'y', 'z']) // k = 3: x, y, z += 1/3
  // total 3; w(x) = 1/2 + 1 + 1/3 = 11/6, w(y) = 1/2 + 1/3 = 5/6, w(z) = 1/3
  let m = monthShares(tally)
  t.same([...m.shares.keys()].sort(), ['x', 'y', 'z'])
  t.equal(m.shares.get('x'), (1 + 1 / 2 + 1 / 3) / 3, 'share(x) = (11/6) / 3 = 11/18, summed in ascending k')
  t.equal(m.maxShare, m.shares.get('x'))
  addFollow(tally, ['y', 'z'])
  removeFollow(tally, ['y', 'z'])
  removeFollow(tally, ['x', 'y', 'z'])
  addFollow(tally, ['x', 'y', 'z'])
  t.same(monthShares(tally), m, 'the same active follows give the same bits, whatever came and went')
  removeFollow(tally, ['x', 'y', 'z'])
  removeFollow(tally, ['x', 'y'])
  m = monthShares(tally)
  t.same([...m.shares.keys()], ['x'], 'y and z leave I_M when their last follow ends (no 1e-17 left over)')
  t.equal(m.shares.get('x'), 1)
  removeFollow(tally, ['x'])
  t.same(monthShares(tally), { shares: new Map(), maxShare: 0 })
  t.equal(tally.total, 0)
})

t.test('4.2 ties: equal rationals reached through different k are equal shares', async (t) => {
  const a = 0.1 + 0.2 // 0.30000000000000004
  t.ok(sameShare(a, 0.3))
  t.notOk(sameShare(0.3, 0.3000001))
  t.equal(relativeOf(0.3, a), 1, 'a share tied with the maximum has relative exactly 1')
  t.equal(relativeOf(0.15, 0.3), 0.5)
  const rows = [
    { id: 'i2', name: 'Beta', share: 0.3 },
    { id: 'i1', name: 'Beta', share: a },
    { id: 'i3', name: 'Alpha', share: 0.3 },
    { id: 'i0', name: 'Zed', share: 0.4 }
  ].sort(compareRanked)
  t.same(rows.map((r) => r.id), ['i0', 'i3', 'i1', 'i2'], 'share desc, then name, then id')
})

t.test('reportMonth: the current month, or the latest month the profiles\' data names when that is later', async (t) => {
  const now = new Date('2026-11-15T12:00:00Z')
  const quiet = { follows: [follow('a', '2026-03-01', '2026-09-01'), follow('b', '2026-10-02')] }
  const ahead = { follows: [follow('c', '2026-12-01')] }
  const endsAhead = { follows: [follow('d', '2026-02-01', '2027-01-01')] }
  t.equal(dataMonthOf(quiet.follows), parseMonth('2026-10'), 'the data month: the latest since or until')
  t.equal(dataMonthOf(endsAhead.follows), parseMonth('2027-01'), 'an until counts: it ends a follow in that month')
  t.equal(dataMonthOf([]), -Infinity, 'no follows, no data month')
  t.equal(reportMonth(now, []), parseMonth('2026-11'), 'no profile: the current month')
  t.equal(reportMonth(now, [quiet]), parseMonth('2026-11'), 'data up to an earlier month: the current month')
  t.equal(reportMonth(now, [quiet, ahead]), parseMonth('2026-12'), 'one profile\'s data a month ahead: that month, for the whole report')
  t.equal(reportMonth('2026-11', [endsAhead, ahead]), parseMonth('2027-01'), 'the latest of them')
  t.equal(reportMonth(new Date('2027-02-01T00:00:00Z'), [ahead]), parseMonth('2027-02'), 'once the current month passes the data, the current month again')
})
