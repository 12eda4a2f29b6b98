// Hostile NDJSON: bodies of generated records with bad shapes, POSTed to /ingest
// with the right token. Never a 5xx, every refusal a GeneralError, and nothing half-written: the
// profile tables are unchanged by a refused body.
import t from '../tap.ts'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from '../helper.ts'
import { contractViolation, FUZZ_SEED, hostileJson, hostileString, POLLUTION_KEYS, PROFILE_TABLES, prototypePolluted, tableCounts } from './support.ts'

const TOKEN = 'ingest-token-fuzz-0123456789abcdef'
const VALID = readFileSync(fileURLToPath(new URL('../fixtures/ingest-valid.ndjson', import.meta.url)), 'utf8')
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' }

const TYPES = ['category', 'redflag', 'interest', 'account', 'profile', 'follow', 'friend']
const idLike = fc.oneof(fc.constantFrom('c-sport', 'i-boxing', 'rf-violence', 'a-1', 'p-1', 'p-2', 'missing-id', ...POLLUTION_KEYS), hostileString)
const field = fc.oneof(idLike, hostileJson)

/** a record that looks like one of the seven types, with fields of any type, some missing, some extra */
const record = fc.record({
  type: fc.oneof({ arbitrary: fc.constantFrom(...TYPES), weight: 5 }, { arbitrary: field, weight: 1 }),
  id: field,
  name: field,
  label: field,
  synthetic: field,
  categoryId: idLike,
  redFlagId: fc.option(idLike),
  source: fc.oneof(fc.constantFrom('ig', 'fb', 'tt', 'tw', 'li', 'xx', 'IG', ''), hostileString),
  username: field,
  fullname: field,
  image: fc.option(field),
  link: field,
  interests: fc.oneof(fc.array(idLike, { maxLength: 3 }), field),
  profileId: idLike,
  accountId: idLike,
  since: fc.oneof(fc.constantFrom('2025-03-14', '2025-02-30', '0000-00-00', '2025-13-01', '99999-01-01'), hostileString),
  until: fc.option(fc.oneof(fc.constantFrom('2025-01-01', '2024-12-31'), hostileString)),
  a: idLike,
  b: idLike
}, { requiredKeys: ['type'] })

/** a line a parser must refuse, whatever its neighbours */
const badLine = fc.oneof(
  fc.constantFrom('{', 'null', '[]', '"profile"', '{"type":"profile"}', '{"type":"nope","id":"x"}', '\u0000', '{"type":"friend","a":"p-1","b":"p-1"}',
    '{"__proto__":{"type":"category"},"id":"c-x","name":"X","synthetic":false}',
    '{"type":"category","id":"c-x","name":"X","synthetic":false,"constructor":{"prototype":{"polluted":true}}}',
    '{"type":"follow","profileId":"p-1","accountId":"no-such-account","since":"2025-01-01"}',
    `{"type":"category","id":"${'x'.repeat(100_000)}","name":"X","synthetic":false}`,
    '{"a":'.repeat(3000) + '1' + '}'.repeat(3000)),
  // one line, not blank (blank lines are skipped), not JSON
  hostileString.filter((s) => {
    if (/[\r\n]/.test(s) || !s.trim()) return false
    try { JSON.parse(s); return false } catch { return true }
  })
)

// valid lines mixed in, so that a refusal has something it could have half-written
const validLines = VALID.split('\n').filter(Boolean)
const goodLine = fc.constantFrom(...validLines, '{"type":"category","id":"c-new","name":"New","synthetic":false}')
const line = fc.oneof({ arbitrary: record.map((r) => JSON.stringify(r)), weight: 3 }, { arbitrary: goodLine, weight: 2 }, { arbitrary: badLine, weight: 1 })

const body = fc.tuple(fc.array(line, { maxLength: 12 }), badLine, fc.nat(), fc.constantFrom('\n', '\r\n')).map(([lines, bad, at, eol]) => {
  const all = [...lines]
  all.splice(at % (all.length + 1), 0, bad)
  return all.join(eol)
})

t.test('generated NDJSON: never a 5xx, a refused body writes nothing', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN, LOG_LEVEL: 'info' })
  const seeded = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers, payload: VALID })
  t.equal(seeded.statusCode, 200, seeded.body)
  const before = await tableCounts(app, PROFILE_TABLES)

  const seen = new Map<number, number>()
  await fc.assert(fc.asyncProperty(body, async (payload) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers, payload })
    seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1)
    const why = contractViolation(res, 'POST', ['service unavailable'])
    if (why) throw new Error(`${why}: -> ${res.statusCode} ${res.body.slice(0, 300)}`)
    // every body holds a line that must be refused, so nothing may be written
    if (res.statusCode !== 400) throw new Error(`expected 400, got ${res.statusCode} ${res.body.slice(0, 300)}`)
    const after = await tableCounts(app, PROFILE_TABLES)
    if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`half-written: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`)
    const polluted = prototypePolluted()
    if (polluted.length) throw new Error(`Object.prototype polluted: ${polluted.join(',')}`)
  }), { numRuns: 40, seed: FUZZ_SEED, endOnFailure: true })
  t.comment(`seed ${FUZZ_SEED}, statuses ${JSON.stringify(Object.fromEntries(seen))}`)
  t.same(await tableCounts(app, PROFILE_TABLES), before, 'profile tables unchanged')

  // skipInvalid: the good lines go in, the bad are listed; still never a 5xx
  await fc.assert(fc.asyncProperty(body, async (payload) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/ingest?skipInvalid=true', headers, payload })
    const why = contractViolation(res, 'POST', ['service unavailable'])
    if (why) throw new Error(`${why}: -> ${res.statusCode} ${res.body.slice(0, 300)}`)
    if (res.statusCode === 200 && !(res.json().invalid >= 1)) throw new Error(`the bad line was not counted: ${res.body.slice(0, 300)}`)
  }), { numRuns: 15, seed: FUZZ_SEED, endOnFailure: true })
  t.same(prototypePolluted(), [], 'Object.prototype is not polluted')
})
