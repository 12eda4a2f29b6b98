// POST /api/v1/ingest: a collector pushes NDJSON with the ingest token.
import t from '../tap.ts'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { gzipSync } from 'node:zlib'
import { build, signedInUser, type Tap } from '../helper.ts'

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), 'utf8')
const VALID = fixture('ingest-valid.ndjson')
const INVALID = fixture('ingest-invalid.ndjson')
const TOKEN = 'ingest-token-0123456789abcdef'
const URL_ = '/api/v1/ingest'
const ndjson = (token = TOKEN) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' })

async function count (app: FastifyInstance, table: string): Promise<number> {
  const [row] = await app.database.query<{ n: number }>(`select count(*)::int as n from ${table}`)
  return row.n
}

// The route spools under os.tmpdir(), which follows TMPDIR on every call. Other test processes
// spool into the machine's /tmp at the same time, so this test gives its own requests a private one.
function privateTmpdir (t: Tap): () => string[] {
  const dir = mkdtempSync(join(tmpdir(), 'pir-ingest-test-spool-'))
  const saved = process.env.TMPDIR
  process.env.TMPDIR = dir
  t.teardown(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
    rmSync(dir, { recursive: true, force: true })
  })
  return () => readdirSync(dir)
}

t.test('without INGEST_TOKEN the endpoint does not exist', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: VALID })
  t.equal(res.statusCode, 404)
  t.has(res.json(), { code: 404, message: 'not found' })
})

t.test('the token is checked before anything else', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN })
  for (const headers of [
    ndjson('wrong-token'),
    ndjson(`${TOKEN}x`),
    { 'content-type': 'application/x-ndjson' },
    { authorization: `Basic ${TOKEN}`, 'content-type': 'application/x-ndjson' },
    { authorization: 'Bearer ', 'content-type': 'application/json' }
  ]) {
    const res = await app.inject({ method: 'POST', url: URL_, headers, payload: VALID })
    t.equal(res.statusCode, 401, JSON.stringify(headers))
    t.has(res.json(), { code: 401, message: 'access denied' })
  }
  t.equal(await count(app, 'profiles'), 0)
})

t.test('the right token imports and answers counts per record type', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN })
  const spools = privateTmpdir(t)
  const res = await app.inject({ method: 'POST', url: URL_, headers: { ...ndjson(), 'content-type': 'application/x-ndjson; charset=utf-8' }, payload: VALID })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), {
    imported: { category: 3, redflag: 1, interest: 4, account: 4, profile: 4, follow: 6, friend: 2 },
    replaced: 0, invalid: 0, errors: []
  })
  t.same(res.json().summary.profile, { inserted: 4, updated: 0, unchanged: 0 })
  t.equal(await count(app, 'follows'), 6)
  const again = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: VALID })
  t.equal(again.statusCode, 200)
  t.same(again.json().summary.follow, { inserted: 0, updated: 0, unchanged: 6 })
  t.equal(await count(app, 'follows'), 6, 'idempotent')
  t.same(spools(), [], 'the spooled body is deleted')

  // the rest of the API still reads JSON: the NDJSON parser lives in the ingest scope only
  const u = await signedInUser(app)
  t.ok(u.token)
})

t.test('bad lines: 400 naming them, and nothing written; skipInvalid imports the rest', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN })
  const res = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: INVALID })
  t.equal(res.statusCode, 400)
  const body = res.json()
  t.equal(body.code, 400)
  t.match(body.message, /^6 invalid lines: line 3: unknown categoryId "c-nowhere"; line 6: source: must be one of ig, fb, tt, tw, li; line 7: .*; line 8: broken JSON; line 9: missing field "username"; and 1 more$/)
  for (const table of ['categories', 'interests', 'accounts', 'profiles', 'follows']) t.equal(await count(app, table), 0, table)

  const skip = await app.inject({ method: 'POST', url: `${URL_}?skipInvalid=true`, headers: ndjson(), payload: INVALID })
  t.equal(skip.statusCode, 200, skip.body)
  t.equal(skip.json().invalid, 6)
  t.same(skip.json().errors[0], { line: 3, reason: 'unknown categoryId "c-nowhere"' })
  t.equal(skip.json().imported.profile, 2)
  t.equal(await count(app, 'profiles'), 2)

  const badQuery = await app.inject({ method: 'POST', url: `${URL_}?skipInvalid=maybe`, headers: ndjson(), payload: INVALID })
  t.equal(badQuery.statusCode, 400)
})

t.test('a body that is not NDJSON is 415; one over the limit is 413', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN, INGEST_BODY_LIMIT: '2048' })
  const json = await app.inject({ method: 'POST', url: URL_, headers: { ...ndjson(), 'content-type': 'application/json' }, payload: { type: 'redflag', id: 'r', label: 'R' } })
  t.equal(json.statusCode, 415)
  t.has(json.json(), { code: 415, message: 'unsupported media type' })
  const text = await app.inject({ method: 'POST', url: URL_, headers: { ...ndjson(), 'content-type': 'text/plain' }, payload: 'x' })
  t.equal(text.statusCode, 415)
  const none = await app.inject({ method: 'POST', url: URL_, headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(none.statusCode, 415)

  const big = VALID + VALID
  t.ok(Buffer.byteLength(big) > 2048)
  const declared = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: big })
  t.equal(declared.statusCode, 413)
  t.has(declared.json(), { code: 413, message: 'body too large' })

  // no Content-Length: the limit holds while the body streams in
  const { Readable } = await import('node:stream')
  const streamed = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: Readable.from([VALID, VALID]) })
  t.equal(streamed.statusCode, 413)
  t.equal(await count(app, 'profiles'), 0)

  const small = await app.inject({ method: 'POST', url: URL_, headers: ndjson(), payload: Readable.from([VALID.slice(0, 600), VALID.slice(600, 1500)]) })
  t.equal(small.statusCode, 400, 'a streamed body under the limit is read (its cut-off last line is invalid)')
  t.match(small.json().message, /broken JSON|missing field/)
})

t.test('Content-Encoding: gzip is decompressed; the limit holds for the decompressed size; corrupt gzip is 400', async (t) => {
  const app = await build(t, { INGEST_TOKEN: TOKEN, INGEST_BODY_LIMIT: '4096' })
  const gz = (headers = {}) => ({ ...ndjson(), 'content-encoding': 'gzip', ...headers })
  // both orders of a friendship and a follow repeated with a later until: one feed of upserts
  const feed = VALID + '{"type":"friend","a":"p-2","b":"p-1"}\n{"type":"follow","profileId":"p-1","accountId":"a-1","since":"2025-01-01","until":"2025-06-30"}\n'
  const res = await app.inject({ method: 'POST', url: URL_, headers: gz(), payload: gzipSync(feed) })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { imported: { friend: 2, follow: 6 }, replaced: 2, invalid: 0 })
  t.same(await app.database.query("select until::text from follows where profile_id = 'p-1' and account_id = 'a-1'"), [{ until: '2025-06-30' }])

  const again = await app.inject({ method: 'POST', url: URL_, headers: gz({ 'content-encoding': 'GZIP' }), payload: gzipSync(VALID) })
  t.equal(again.statusCode, 200, again.body)
  t.same(again.json().summary.follow, { inserted: 0, updated: 1, unchanged: 5 }, 'the fixture\'s own follow comes back')

  // a bomb: a few hundred bytes that inflate past the limit
  const bomb = gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20))
  t.ok(bomb.length < 4096)
  const big = await app.inject({ method: 'POST', url: URL_, headers: gz(), payload: bomb })
  t.equal(big.statusCode, 413)
  t.has(big.json(), { code: 413, message: 'body too large' })

  const corrupt = Buffer.from(gzipSync(VALID))
  corrupt[20] ^= 0xff
  corrupt[21] ^= 0xff
  for (const [name, payload] of [['corrupt', corrupt], ['not gzip at all', Buffer.from(VALID)], ['cut off', gzipSync(VALID).subarray(0, 100)]] as const) {
    const bad = await app.inject({ method: 'POST', url: URL_, headers: gz(), payload })
    t.equal(bad.statusCode, 400, name)
    t.has(bad.json(), { code: 400, message: 'the body is not valid gzip' }, name)
  }

  const br = await app.inject({ method: 'POST', url: URL_, headers: gz({ 'content-encoding': 'br' }), payload: 'x' })
  t.equal(br.statusCode, 415)
  t.has(br.json(), { code: 415, message: 'unsupported content encoding "br" (gzip or none)' })
  t.equal(await count(app, 'follows'), 6, 'nothing of the refused bodies was written')
})
