// The report item: a profile with nothing to show, the shape of the item against ReportItemSchema, and
// the report schemas the routes use.
import t from '../tap.ts'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { computeProfile } from '../../src/engine/index.ts'
import {
  CreateReportBodySchema, DiffsQuerySchema, FriendsQuerySchema, ReportItemSchema, ReportSchema
} from '../../schemas/report.ts'
import { account, cat, dataset, follow, interest, profile } from './fixtures.ts'

const ds = dataset({ categories: [cat('c')], interests: [interest('x', 'c')], accounts: [account('a', ['x']), account('e', [])] })

t.test('a profile with no follows', async (t) => {
  const { item, tree, diffs, friends } = computeProfile({ dataset: ds, profile: profile('p', []), friends: [], month: '2025-06' })
  t.same(item, {
    image: 'https://img/p', id: 'p', username: 'p_u', fullname: 'p Full', imageNotLoaded: false, source: 'ig', link: 'https://net/p',
    categoriesCount: 0,
    totalInterests: 0,
    topInterests: [],
    friends: {
      items: [], hasMore: false, total: 0, sourceProfile: { image: 'https://img/p', id: 'p', username: 'p_u', fullname: 'p Full', imageNotLoaded: false, source: 'ig', link: 'https://net/p' },
      sortByRedFlagsDefault: false, sortByRedFlags: false, hasCommonInterests: false, hasRedFlags: false,
      sortByRedFlagsAdjusted: false, availableSources: []
    }
  })
  for (const key of ['categories', 'redFlags', 'interestDiffs']) t.notOk(key in item, `${key} omitted`)
  t.same([tree, diffs, friends], [[], [], { common: [], redFlags: [] }])
  t.ok(Value.Check(ReportItemSchema, item))
})

t.test('only accounts without interests: same as no follows, except history', async (t) => {
  const { item } = computeProfile({ dataset: ds, profile: profile('p', [follow('e', '2025-01-01')]), friends: [], month: '2025-06' })
  t.same([item.totalInterests, item.categoriesCount, 'categories' in item, 'interestDiffs' in item], [0, 0, false, false])
})

t.test('the item validates, stray fields do not', async (t) => {
  const p = profile('p', [follow('a', '2025-01-01'), follow('a', '2024-01-01', '2024-06-01')])
  const { item } = computeProfile({ dataset: ds, profile: p, friends: [], month: new Date('2025-06-15T00:00:00Z') })
  t.same([...Value.Errors(ReportItemSchema, item)], [])
  t.same(item.interestDiffs?.items.map((d) => [d.date, d.totalNew, d.totalLost]), [['2025-01', 1, 0], ['2024-06', 0, 1]],
    'the same account followed twice: lost, then new again (2024-01 is the baseline)')
  const stray = { ...item, topInterests: [{ ...item.topInterests[0], follows: [], extra: 1 }] }
  t.notOk(Value.Check(ReportItemSchema, stray), 'closed objects catch a stray field')
})

t.test('report API schemas', async (t) => {
  // Fastify's Ajv knows the formats; TypeBox's Value needs them registered
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)))
  t.ok(Value.Check(CreateReportBodySchema, { profiles: [{ source: 'ig', username: 'jdoe' }] }))
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: [] }), '1..5 profiles')
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: Array(6).fill({ source: 'ig', username: 'a' }) }))
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: [{ source: 'xx', username: 'a' }] }), 'known sources only')
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: [{ source: 'ig', username: '' }] }), 'username 1..100')
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: [{ source: 'ig', username: 'a'.repeat(101) }] }))
  t.notOk(Value.Check(CreateReportBodySchema, { profiles: [{ source: 'ig', username: 'a' }], x: 1 }), 'no extra fields')
  t.same(Value.Default(FriendsQuerySchema, {}), { offset: 0, limit: 20 }, 'paging defaults')
  t.notOk(Value.Check(FriendsQuerySchema, { limit: 101 }))
  t.notOk(Value.Check(DiffsQuerySchema, { offset: -1 }))
  t.ok(Value.Check(ReportSchema, { id: 'r', status: 'ready', progress: 100, createdAt: '2025-06-01T00:00:00.000Z', generatedAt: null, items: [] }))
  t.notOk(Value.Check(ReportSchema, { id: 'r', status: 'done', progress: 100, createdAt: '2025-06-01T00:00:00.000Z', generatedAt: null, items: [] }))
})
