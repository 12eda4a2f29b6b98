// The showcase's next month (src/services/demo/next-month.ts, `npm run demo-data -- --next-month`):
// deterministic lines, valid for the ingest on their own and on top of the demo set, and a month in
// which the engine finds new interests (a red flag among them) and lost ones on every network; then
// imported into a database as the command does, one month more each time.
import t from '../tap.ts'
import { computeReport, type ProfileDef, type ReportInput } from '../../src/engine/index.ts'
import { demoDataLines } from '../../src/services/demo/data.ts'
import { importDemoDataIfEmpty, importNextMonth } from '../../src/services/demo/import.ts'
import { demoShowcaseFollows, monthAfter, nextMonthLines } from '../../src/services/demo/next-month.ts'
import { createIngestService } from '../../src/services/ingest/index.ts'
import { freshDatabase } from '../helper.ts'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const SOURCES = ['ig', 'fb', 'tt', 'tw', 'li']

/** the records of these inputs, the last of a key winning as in the ingest */
function merged (...inputs: Iterable<string>[]): Rec[] {
  const byKey = new Map<string, Rec>()
  for (const input of inputs) {
    for (const line of input) {
      const r = JSON.parse(line) as Rec
      const key = r.type === 'follow' ? `follow/${r.profileId}/${r.accountId}` : r.type === 'friend' ? `friend/${r.a}/${r.b}` : `${r.type}/${r.id}`
      byKey.set(key, r)
    }
  }
  return [...byKey.values()]
}

/** alex.rivera's profiles as the engine's input, friends left out (the diffs do not need them) */
function showcaseInput (recs: Rec[], month: string): ReportInput {
  const of = (type: string) => recs.filter((r) => r.type === type)
  const profile = (p: Rec): ProfileDef => ({
    id: p.id, source: p.source, username: p.username, fullname: p.fullname, image: p.image, link: p.link,
    follows: of('follow').filter((f) => f.profileId === p.id).map((f) => ({ accountId: f.accountId, since: f.since, until: f.until }))
  })
  return {
    month,
    dataset: {
      categories: of('category').map((c) => ({ id: c.id, name: c.name, synthetic: c.synthetic })),
      redFlags: of('redflag').map((r) => ({ id: r.id, label: r.label })),
      interests: of('interest').map((i) => ({ id: i.id, name: i.name, categoryId: i.categoryId, redFlagId: i.redFlagId ?? null })),
      accounts: of('account').map((a) => ({ id: a.id, username: a.username, fullname: a.fullname, image: a.image, interests: a.interests }))
    },
    profiles: of('profile').filter((p) => p.username === 'alex.rivera').map((p) => ({ profile: profile(p), friends: [] }))
  }
}

t.test('the next month is deterministic, valid on its own, and changes every network', async (t) => {
  for (const [seed, month] of [[1, '2026-11'], [7, '2025-12']] as const) {
    const next = monthAfter(month)
    const lines = [...nextMonthLines(seed, next, demoShowcaseFollows(seed, month))]
    t.same([...nextMonthLines(seed, next, demoShowcaseFollows(seed, month))], lines, `seed ${seed}: the same lines again`)
    const follows = lines.map((l) => JSON.parse(l) as Rec).filter((r) => r.type === 'follow')
    t.ok(follows.every((f) => (f.until ?? f.since).startsWith(next)), `seed ${seed}: every follow starts or ends in ${next}`)

    const redFlagIds = new Set(lines.map((l) => JSON.parse(l) as Rec).filter((r) => r.type === 'interest' && r.redFlagId).map((r) => r.id))
    const input = showcaseInput(merged(demoDataLines(seed, month), lines), next)
    let redFlags = 0
    for (const r of computeReport(input)) {
      const d = r.diffs.find((x) => x.date === next)
      t.ok(d && d.totalNew > 0 && d.totalLost > 0, `seed ${seed} ${r.item.source}: ${d?.totalNew} new and ${d?.totalLost} lost in ${next}`)
      redFlags += d?.new.filter((i) => redFlagIds.has(i.id)).length ?? 0
    }
    t.ok(redFlags > 0, `seed ${seed}: ${redFlags} new red flags in ${next}`)
    t.same(input.profiles.map((p) => p.profile.source), SOURCES)
  }

  const database = await freshDatabase(t)
  const outcome = await createIngestService({ database }).importLines(() => nextMonthLines(1, '2026-12', demoShowcaseFollows(1, '2026-11')))
  t.equal(outcome.invalid, 0, 'valid for the ingest on an empty database')
  t.ok(outcome.written)
})

t.test('imported on top of the demo set: one later month a call', async (t) => {
  const database = await freshDatabase(t)
  t.ok((await importDemoDataIfEmpty(database, { info: () => {} }, { now: () => Date.parse('2026-11-15T12:00:00Z') }))?.written)
  const first = await importNextMonth(database)
  t.equal(first?.month, '2026-12')
  t.equal(first?.outcome.invalid, 0)
  t.equal(first?.outcome.summary.account.inserted, 0, 'the accounts named are the demo set\'s, unchanged')
  t.ok(first!.outcome.summary.follow.inserted > 0 && first!.outcome.summary.follow.updated === 5, 'new follows, and one follow ended on each network')
  const second = await importNextMonth(database)
  t.equal(second?.month, '2027-01', 'the next call adds the month after')
  t.ok(second!.outcome.summary.follow.inserted > 0)

  t.equal(await importNextMonth(await freshDatabase(t)), null, 'nothing to add to a database without the demo data')
})
