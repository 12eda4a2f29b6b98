// The demo dataset: a pure function of (seed, month), realistic in shape, importable as it is.
import t from '../tap.ts'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { currentMonth, demoDataLines, mulberry32 } from '../../src/services/demo/data.ts'
import { importDemoDataIfEmpty } from '../../src/services/demo/import.ts'
import { createIngestService } from '../../src/services/ingest/index.ts'
import { freshDatabase } from '../helper.ts'

// every field of every record type, for reading the lines back
interface Rec {
  type: string, id: string, synthetic?: boolean, categoryId: string, redFlagId?: string | null, interests: string[],
  source: string, username: string, profileId: string, since: string, until: string | null, a: string, b: string,
  image?: string | null
}

t.test('mulberry32 is a plain function of its seed', async (t) => {
  const a = mulberry32(42)
  const b = mulberry32(42)
  const xs = Array.from({ length: 1000 }, () => a())
  t.same(xs, Array.from({ length: 1000 }, () => b()))
  t.ok(xs.every((x) => x >= 0 && x < 1))
  t.not(mulberry32(43)(), xs[0])
  t.equal(currentMonth(Date.UTC(2025, 0, 31, 23, 59)), '2025-01')
})

t.test('same seed and month, same lines; any change, other lines', async (t) => {
  const text = (seed: number, month: string) => [...demoDataLines(seed, month)].join('\n')
  const a = text(5, '2025-06')
  t.equal(text(5, '2025-06'), a)
  t.not(text(6, '2025-06'), a)
  t.not(text(5, '2025-07'), a)
  t.throws(() => [...demoDataLines(5, '2025-6')], /month must be YYYY-MM/)
  t.throws(() => [...demoDataLines(5, '2025-00')], /month must be YYYY-MM/)
})

t.test('the shape of the dataset', async (t) => {
  const records = [...demoDataLines(11, '2025-06')].map((l) => JSON.parse(l) as Rec)
  const of = (type: string) => records.filter((r) => r.type === type)
  const categories = of('category')
  t.equal(categories.length, 40)
  t.ok(categories.filter((c) => c.synthetic).length >= 2, 'a few synthetic categories')
  t.equal(of('redflag').length, 6)
  const interests = of('interest')
  t.equal(interests.length, 400)
  const perCategory = new Map<string, number>()
  for (const i of interests) perCategory.set(i.categoryId, (perCategory.get(i.categoryId) ?? 0) + 1)
  t.equal(perCategory.size, 40, 'every category has interests')
  const redInterests = new Set(interests.filter((i) => i.redFlagId).map((i) => i.id))
  t.ok(redInterests.size > 0 && redInterests.size < 400 * 0.05, 'red-flag interests are rare')
  const accounts = of('account')
  t.equal(accounts.length, 5000)
  const redAccounts = accounts.filter((a) => a.interests.some((i) => redInterests.has(i)))
  t.ok(redAccounts.length > 0 && redAccounts.length < 5000 * 0.03, `few red-flag accounts (${redAccounts.length})`)
  const profiles = of('profile')
  t.equal(profiles.length, 2000)
  const perSource = new Map<string, number>()
  for (const p of profiles) perSource.set(p.source, (perSource.get(p.source) ?? 0) + 1)
  t.same([...perSource.keys()].sort(), ['fb', 'ig', 'li', 'tt', 'tw'])
  const names = new Set(profiles.map((p) => `${p.source}/${p.username.toLowerCase()}`))
  t.equal(names.size, 2000, 'usernames unique per source, case-insensitively')
  // no picture: an address on a host that does not exist fails in every browser that shows the demo
  t.same([...profiles, ...accounts].filter((r) => r.image !== null).map((r) => r.id), [], 'no profile or account has an image address')

  const follows = of('follow')
  const perProfile = new Map<string, number>()
  for (const f of follows) perProfile.set(f.profileId, (perProfile.get(f.profileId) ?? 0) + 1)
  const counts = [...perProfile.values()].sort((x, y) => x - y)
  const median = counts[counts.length >> 1]
  t.ok(counts.at(-1)! > 10 * median, `heavy-tailed follow counts (median ${median}, max ${counts.at(-1)})`)
  t.ok(follows.every((f) => f.since >= '2023-07-01' && f.since <= '2025-06-30'), 'follows within the 24 months')
  const unfollows = follows.filter((f) => f.until)
  t.ok(unfollows.length > follows.length * 0.05, 'and some unfollows')
  t.ok(unfollows.every((f) => f.until! >= f.since && f.until! <= '2025-06-30'))

  const sourceOf = new Map(profiles.map((p) => [p.id, p.source]))
  const friends = of('friend')
  t.ok(friends.length > 1000)
  const same = friends.filter((f) => sourceOf.get(f.a) === sourceOf.get(f.b)).length
  t.ok(same > friends.length * 0.75, `friendships mostly within a source (${same}/${friends.length})`)
})

t.test('the demo data imports without a single invalid line; at start only into an empty database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pir-demo-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'demo.ndjson')
  const month = '2025-06'
  writeFileSync(file, [...demoDataLines(1, month)].join('\n') + '\n')

  const database = await freshDatabase(t)
  const out = await createIngestService({ database }).importFile(file)
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.same(out.imported, { category: 40, redflag: 6, interest: 400, account: 5000, profile: 2000, follow: out.imported.follow, friend: out.imported.friend })
  const logs: string[] = []
  const log = { info: (_obj: Record<string, unknown>, msg: string) => { logs.push(msg) } }
  t.equal(await importDemoDataIfEmpty(database, log), null, 'a database with profiles is left alone')
  t.same(logs, [])

  const empty = await freshDatabase(t)
  const started = await importDemoDataIfEmpty(empty, log, { seed: 1, now: () => Date.UTC(2025, 5, 15) })
  t.same(started?.imported, out.imported, 'the same dataset, streamed from the generator')
  t.equal(logs.length, 2)
  const [row] = await empty.query<{ n: number }>('select count(*)::int as n from follows')
  t.equal(row.n, out.imported.follow)
})
