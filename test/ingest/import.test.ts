// The import service on hand-written files: whole-file validation with line numbers, skipInvalid,
// idempotent re-import, records in any order, references to rows already in the database.
import t from '../tap.ts'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '../../src/db/client.ts'
import { createIngestService, describeInvalid } from '../../src/services/ingest/index.ts'
import { parseRecord } from '../../src/services/ingest/records.ts'
import { splitLines, type Line } from '../../src/services/ingest/lines.ts'
import { freshDatabase } from '../helper.ts'

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))
const VALID = fixture('ingest-valid.ndjson')
const INVALID = fixture('ingest-invalid.ndjson')

const TABLES = {
  categories: 'id', red_flags: 'id', interests: 'id', accounts: 'id', account_interests: 'account_id, interest_id',
  profiles: 'id', follows: 'profile_id, account_id', friendships: 'a, b'
}

/** every profile-data row, with its row version (xmin): equal snapshots = nothing was rewritten */
async function snapshot (database: Database) {
  const out: Record<string, unknown[]> = {}
  for (const [table, order] of Object.entries(TABLES)) {
    const columns = table === 'follows' ? 'profile_id, account_id, since::text, until::text' : '*'
    out[table] = await database.query(`select xmin::text as version, ${columns} from ${table} order by ${order}`)
  }
  return out
}

async function count (database: Database, table: string): Promise<number> {
  const [row] = await database.query<{ n: number }>(`select count(*)::int as n from ${table}`)
  return row.n
}

function tempFile (t: { teardown: (fn: () => void) => void }, lines: string[] | string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'pir-ingest-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'data.ndjson')
  writeFileSync(file, Array.isArray(lines) ? lines.join('\n') + '\n' : lines)
  return file
}

const rec = (r: Record<string, unknown>) => JSON.stringify(r)

t.test('a valid file imports, in one go, whatever the order of its records', async (t) => {
  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  const progress: number[] = []
  const out = await ingest.importFile(VALID, { onProgress: (p) => progress.push(p.done / p.total) })
  t.match(out, {
    imported: { category: 3, redflag: 1, interest: 4, account: 4, profile: 4, follow: 6, friend: 2 },
    replaced: 0, invalid: 0, errors: [], written: true
  })
  t.same(out.summary.follow, { inserted: 6, updated: 0, unchanged: 0 })
  t.equal(progress.at(-1), 1, 'progress ends at 100%')
  t.ok(progress.every((p, i) => i === 0 || p >= progress[i - 1]), 'progress never goes back')
  t.same(await database.query('select a, b from friendships order by a, b'), [{ a: 'p-1', b: 'p-2' }, { a: 'p-1', b: 'p-3' }],
    'one row per pair, a < b')
  t.same(await database.query("select interest_id from account_interests where account_id = 'a-3' order by 1"),
    [{ interest_id: 'i-jazz' }, { interest_id: 'i-tennis' }])
  t.same(await database.query("select red_flag_id, category_id from interests where id = 'i-tennis'"), [{ red_flag_id: null, category_id: 'c-sport' }])
  t.same(await database.query("select image from accounts where id = 'a-3'"), [{ image: null }], 'absent image = null')
  t.same(await database.query("select since::text, until::text from follows where profile_id = 'p-1' and account_id = 'a-3'"),
    [{ since: '2025-04-02', until: '2025-08-31' }])

  // the same lines backwards: children before their parents
  const reversed = tempFile(t, readFileSync(VALID, 'utf8').trim().split('\n').reverse())
  const other = await freshDatabase(t)
  const again = await createIngestService({ database: other }).importFile(reversed)
  t.equal(again.invalid, 0, JSON.stringify(again.errors))
  t.same(again.imported, out.imported)
})

t.test('re-importing a file changes nothing', async (t) => {
  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  await ingest.importFile(VALID)
  const before = await snapshot(database)
  const again = await ingest.importFile(VALID)
  t.equal(again.written, true)
  t.same(await snapshot(database), before, 'same rows, same contents, not even rewritten')
})

t.test('a file with bad lines is refused whole, with line numbers and reasons', async (t) => {
  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  const out = await ingest.importFile(INVALID)
  t.equal(out.written, false)
  t.equal(out.invalid, 6)
  t.same(out.errors, [
    { line: 3, reason: 'unknown categoryId "c-nowhere"' },
    { line: 6, reason: 'source: must be one of ig, fb, tt, tw, li' },
    { line: 7, reason: 'since: "2025-02-30" is not a real date' },
    { line: 8, reason: 'broken JSON' },
    { line: 9, reason: 'missing field "username"' },
    { line: 10, reason: 'unknown profileId "p-9"' }
  ])
  t.same(out.imported, { category: 0, redflag: 0, interest: 0, account: 0, profile: 0, follow: 0, friend: 0 })
  for (const table of Object.keys(TABLES)) t.equal(await count(database, table), 0, `nothing in ${table}`)
  t.match(describeInvalid(out), /^6 invalid lines: line 3: unknown categoryId "c-nowhere"; line 6: .*; and 1 more$/)
})

t.test('skipInvalid imports the good lines and lists the bad ones', async (t) => {
  const database = await freshDatabase(t)
  const out = await createIngestService({ database }).importFile(INVALID, { skipInvalid: true })
  t.equal(out.written, true)
  t.equal(out.invalid, 6)
  t.equal(out.errors.length, 6)
  t.same(out.imported, { category: 1, redflag: 0, interest: 1, account: 1, profile: 2, follow: 0, friend: 0 })
  t.same(await database.query('select id from profiles order by id'), [{ id: 'p-1' }, { id: 'p-3' }])
  t.same(await database.query('select id from interests'), [{ id: 'i-boxing' }])
})

t.test('an invalid parent makes its children invalid, so skipInvalid never breaks a foreign key', async (t) => {
  const database = await freshDatabase(t)
  const file = tempFile(t, [
    rec({ type: 'category', id: 'c-bad', name: '', synthetic: false }),
    rec({ type: 'interest', id: 'i-1', name: 'One', categoryId: 'c-bad' }),
    rec({ type: 'account', id: 'a-1', source: 'ig', username: 'one', fullname: 'One', interests: ['i-1'] }),
    rec({ type: 'profile', id: 'p-1', source: 'ig', username: 'u1', fullname: 'U', link: 'https://x.example/u1' }),
    rec({ type: 'profile', id: 'p-2', source: 'ig', username: 'U1', fullname: 'U', link: 'https://x.example/U1' }),
    rec({ type: 'follow', profileId: 'p-1', accountId: 'a-1', since: '2025-01-01' }),
    rec({ type: 'friend', a: 'p-1', b: 'p-2' })
  ])
  const out = await createIngestService({ database }).importFile(file, { skipInvalid: true })
  t.same(out.errors, [
    { line: 1, reason: 'name: must not be empty' },
    { line: 2, reason: 'unknown categoryId "c-bad"' },
    { line: 3, reason: 'unknown interest "i-1"' },
    { line: 5, reason: 'duplicate username ig/"U1" (first on line 4)' },
    { line: 6, reason: 'unknown accountId "a-1"' },
    { line: 7, reason: 'unknown profile "p-2"' }
  ])
  t.same(out.imported, { category: 0, redflag: 0, interest: 0, account: 0, profile: 1, follow: 0, friend: 0 })
})

t.test('references to rows already in the database are fine', async (t) => {
  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  await ingest.importFile(VALID)
  const file = tempFile(t, [
    rec({ type: 'interest', id: 'i-opera', name: 'Opera', categoryId: 'c-music', redFlagId: 'rf-violence' }),
    rec({ type: 'account', id: 'a-3', source: 'ig', username: 'jazzcats', fullname: 'Jazz Cats!', image: null, interests: ['i-jazz', 'i-opera'] }),
    rec({ type: 'follow', profileId: 'p-2', accountId: 'a-3', since: '2025-07-01', until: '2025-07-01' }),
    rec({ type: 'friend', a: 'p-3', b: 'p-2' }),
    rec({ type: 'friend', a: 'p-2', b: 'p-1' })
  ])
  const out = await ingest.importFile(file)
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.same(out.imported, { category: 0, redflag: 0, interest: 1, account: 1, profile: 0, follow: 1, friend: 2 })
  t.same(await database.query("select interest_id from account_interests where account_id = 'a-3' order by 1"),
    [{ interest_id: 'i-jazz' }, { interest_id: 'i-opera' }], 'the account\'s interest set is replaced')
  t.same(await database.query("select fullname from accounts where id = 'a-3'"), [{ fullname: 'Jazz Cats!' }], 'upserted')
  t.equal(await count(database, 'friendships'), 3, 'a known pair given the other way round is not stored twice')

  const clash = tempFile(t, [rec({ type: 'profile', id: 'p-9', source: 'ig', username: 'ALICE', fullname: 'A', link: 'https://x.example/a' })])
  const refused = await ingest.importFile(clash)
  t.same(refused.errors, [{ line: 1, reason: 'username ig/"ALICE" belongs to profile "p-2"' }])
})

t.test('every kind of bad line is named', async (t) => {
  const profile = { type: 'profile', id: 'p-1', source: 'ig', username: 'u', fullname: 'U', image: null, link: 'https://x.example/u' }
  const follow = { type: 'follow', profileId: 'p-1', accountId: 'a-1', since: '2025-01-31', until: null }
  const account = { type: 'account', id: 'a-9', source: 'ig', username: 'a', fullname: 'A' }
  const cases: [string, string][] = [
    ['{"type":"category",', 'broken JSON'],
    ['[1, 2]', 'not a JSON object'],
    ['{"id": "x"}', 'missing field "type"'],
    [rec({ type: 'place', id: 'x' }), 'unknown record type "place"'],
    [rec({ type: 7 }), 'unknown record type 7'],
    [rec({ type: 'category', id: 'c', name: 'C', synthetic: 'no' }), 'synthetic: must be true or false'],
    [rec({ type: 'category', id: 'c', name: 'C', synthetic: false, extra: 1 }), 'unknown field "extra"'],
    [rec({ type: 'category', id: 'x'.repeat(201), name: 'C', synthetic: false }), 'id: longer than 200 characters'],
    [rec({ type: 'category', id: 7, name: 'C', synthetic: false }), 'id: must be a string'],
    [rec({ type: 'category', id: 'c', synthetic: false }), 'missing field "name"'],
    [rec({ type: 'redflag', id: 'r', label: 'L'.repeat(501) }), 'label: longer than 500 characters'],
    [rec({ type: 'interest', id: 'i', name: 'I', categoryId: 'c', redFlagId: 3 }), 'redFlagId: must be a string or null'],
    [rec({ ...profile, source: 'ok' }), 'source: must be one of ig, fb, tt, tw, li'],
    [rec({ ...profile, link: 'javascript:alert(1)' }), 'link: must be an http(s) URL'],
    [rec({ ...profile, image: 5 }), 'image: must be a string or null'],
    [rec({ ...profile, image: `https://x.example/${'i'.repeat(2048)}` }), 'image: longer than 2048 characters'],
    [rec({ ...profile, username: 'nul\u0000' }), 'username: contains a NUL character or broken Unicode'],
    [rec({ ...profile, fullname: 'half \ud800' }), 'fullname: contains a NUL character or broken Unicode'],
    [rec({ ...account, interests: 'i-1' }), 'interests: must be an array'],
    [rec({ ...account, interests: ['i', 'i'] }), 'interests: has duplicates'],
    [rec({ ...account, interests: ['i', ''] }), 'interests.1: must not be empty'],
    [rec({ ...account, interests: Array.from({ length: 1001 }, (_, i) => `i-${i}`) }), 'interests: more than 1000 items'],
    [rec({ ...follow, since: '2025-13-01' }), 'since: "2025-13-01" is not a real date'],
    [rec({ ...follow, since: '2023-02-29' }), 'since: "2023-02-29" is not a real date'],
    [rec({ ...follow, since: '0000-01-01' }), 'since: "0000-01-01" is not a real date'],
    [rec({ ...follow, since: '2025/01/01' }), 'since: must be a date YYYY-MM-DD'],
    [rec({ ...follow, until: '2025-02-30' }), 'until: "2025-02-30" is not a real date'],
    [rec({ ...follow, until: 20250101 }), 'until: must be a string or null'],
    [rec({ ...follow, until: '2025-01-30' }), 'until is before since'],
    [rec({ type: 'friend', a: 'p-1', b: 'p-1' }), 'a friend of itself (a equals b)']
  ]
  for (const [line, reason] of cases) t.same(parseRecord(line), { reason }, reason)
  t.same(parseRecord('  '), null, 'a blank line is no record')
  t.same(parseRecord(rec({ ...follow, since: '2024-02-29', until: '2024-02-29' }))?.reason, undefined, 'a leap day; until = since')
})

t.test('repeated keys and unknown references in one file: the last record of a key wins', async (t) => {
  const database = await freshDatabase(t)
  const profile = { type: 'profile', id: 'p-1', source: 'ig', username: 'u', fullname: 'U', image: null, link: 'https://x.example/u' }
  const follow = { type: 'follow', profileId: 'p-1', accountId: 'a-1', since: '2025-01-31', until: null }
  const cases: [string, string][] = [
    [rec(profile), ''],
    [rec({ ...profile, fullname: 'U2' }), ''],
    [rec({ type: 'category', id: 'c', name: 'C', synthetic: false }), ''],
    [rec({ type: 'category', id: 'c', name: 'D', synthetic: false }), ''],
    [rec({ type: 'redflag', id: 'r', label: 'R' }), ''],
    [rec({ type: 'redflag', id: 'r', label: 'R' }), ''],
    [rec({ type: 'interest', id: 'i', name: 'I', categoryId: 'c', redFlagId: 'r' }), ''],
    [rec({ type: 'interest', id: 'i', name: 'I', categoryId: 'c' }), ''],
    [rec({ type: 'interest', id: 'i-2', name: 'I', categoryId: 'c', redFlagId: 'r-none' }), 'unknown redFlagId "r-none"'],
    [rec({ type: 'account', id: 'a-1', source: 'ig', username: 'a', fullname: '', interests: ['i'] }), ''],
    [rec({ type: 'account', id: 'a-1', source: 'ig', username: 'a', fullname: '', interests: [] }), ''],
    [rec(follow), ''],
    [rec({ ...follow, since: '2024-01-01' }), ''],
    [rec({ type: 'profile', id: 'p-7', source: 'fb', username: 'v', fullname: 'V', link: 'http://x.example/v' }), ''],
    [rec({ type: 'friend', a: 'p-7', b: 'p-1' }), ''],
    [rec({ type: 'friend', a: 'p-1', b: 'p-7' }), ''],
    ['   ', ''],
    [`{"type":"category","id":"c-${'x'.repeat(1024 * 1024)}"}`, 'line longer than 1048576 bytes'],
    [rec({ type: 'follow', profileId: 'p-7', accountId: 'a-nope', since: '2025-01-01' }), 'unknown accountId "a-nope"']
  ]
  const file = tempFile(t, cases.map(([line]) => line))
  const out = await createIngestService({ database }).importFile(file, { skipInvalid: true })
  t.same(out.errors, cases.flatMap(([, reason], i) => reason ? [{ line: i + 1, reason }] : []))
  t.same(out.imported, { category: 1, redflag: 1, interest: 1, account: 1, profile: 2, follow: 1, friend: 1 })
  t.equal(out.replaced, 7)
  t.same(await database.query("select fullname from profiles where id = 'p-1'"), [{ fullname: 'U2' }])
  t.same(await database.query('select name from categories'), [{ name: 'D' }])
  t.same(await database.query('select red_flag_id from interests'), [{ red_flag_id: null }])
  t.same(await database.query('select * from account_interests'), [])
  t.same(await database.query('select since::text from follows'), [{ since: '2024-01-01' }])
  t.same(await database.query('select a, b from friendships'), [{ a: 'p-1', b: 'p-7' }])
})

t.test('at most 20 bad lines are listed, then the count of the rest', async (t) => {
  const database = await freshDatabase(t)
  const file = tempFile(t, [rec({ type: 'redflag', id: 'r', label: 'R' }), ...Array.from({ length: 25 }, (_, i) => `{"broken": ${i}`)])
  const out = await createIngestService({ database }).importFile(file)
  t.equal(out.invalid, 25)
  t.equal(out.errors.length, 20)
  t.same(out.errors[0], { line: 2, reason: 'broken JSON' })
  t.same(out.errors[19], { line: 21, reason: 'broken JSON' })
  t.match(describeInvalid(out), /^25 invalid lines: line 2: broken JSON; (line \d+: broken JSON; ){4}and 20 more$/)
  t.equal(await count(database, 'red_flags'), 0)
})

t.test('bytes: UTF-8 only, CRLF and a BOM are fine, a last line without newline counts', async (t) => {
  const database = await freshDatabase(t)
  const category = rec({ type: 'category', id: 'c-é', name: 'Café ☕', synthetic: false })
  const file = tempFile(t, '\ufeff' + category + '\r\n' + rec({ type: 'redflag', id: 'r', label: 'R' }))
  const out = await createIngestService({ database }).importFile(file)
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.same(out.imported.category + out.imported.redflag, 2)
  t.same(await database.query('select id, name from categories'), [{ id: 'c-é', name: 'Café ☕' }])

  const broken = tempFile(t, Buffer.concat([Buffer.from('{"type":"redflag","id":"r2","label":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]))
  const bad = await createIngestService({ database }).importFile(broken)
  t.same(bad.errors, [{ line: 1, reason: 'not valid UTF-8' }])

  const empty = tempFile(t, '')
  const none = await createIngestService({ database }).importFile(empty)
  t.match(none, { imported: { category: 0, redflag: 0, interest: 0, account: 0, profile: 0, follow: 0, friend: 0 }, replaced: 0, invalid: 0, errors: [], written: true })
})

t.test('a row that vanishes between validation and writing aborts the whole import', async (t) => {
  const database = await freshDatabase(t)
  // the database claims an account it does not have, as if a concurrent writer had removed it
  const lying: Database = {
    ...database,
    query: async <T>(text: string, params?: unknown[]) => text.includes('from accounts where id = any')
      ? (params![0] as string[]).map((id) => ({ id })) as T[]
      : database.query<T>(text, params)
  }
  const file = tempFile(t, [
    rec({ type: 'profile', id: 'p-1', source: 'ig', username: 'u', fullname: 'U', link: 'https://x.example/u' }),
    rec({ type: 'follow', profileId: 'p-1', accountId: 'a-ghost', since: '2025-01-01' })
  ])
  await t.rejects(createIngestService({ database: lying }).importFile(file), { name: 'Error', message: /changed during the import; nothing was written/ })
  t.equal(await count(database, 'profiles'), 0, 'rolled back')
})

t.test('lines are split on bytes, whatever the chunking', async (t) => {
  const input = Buffer.from('abcd\r\nabcde\nabcdef\n\nab\u00e9\r\nxyz')
  const expected = [
    { no: 1, text: 'abcd', offset: 6 },
    { no: 2, text: 'abcde', offset: 12 },
    { no: 3, text: null, error: 'line longer than 5 bytes', offset: 19 },
    { no: 4, text: '', offset: 20 },
    { no: 5, text: 'ab\u00e9', offset: 26 },
    { no: 6, text: 'xyz', offset: 29 }
  ]
  for (let size = 1; size <= input.length; size++) {
    const chunks = Array.from({ length: Math.ceil(input.length / size) }, (_, i) => input.subarray(i * size, (i + 1) * size))
    const lines: Line[] = []
    for await (const batch of splitLines((async function * () { yield * chunks })(), 5)) lines.push(...batch)
    t.same(lines, expected, `chunks of ${size}`)
  }
})

t.test('an input that changes between validation and writing aborts the whole import', async (t) => {
  const database = await freshDatabase(t)
  const profile = (username: string) => rec({ type: 'profile', id: 'p-1', source: 'ig', username, fullname: 'U', link: 'https://x.example/u' })
  const category = rec({ type: 'category', id: 'c', name: 'C', synthetic: false })
  // the first read (validation) and the writing passes see different lines of the same types and lengths
  let reads = 0
  const lines = () => { reads++; return [category, profile(reads === 1 ? 'u1' : 'u2')] }
  await t.rejects(createIngestService({ database }).importLines(lines), { message: 'the input changed during the import' })
  t.equal(await count(database, 'profiles'), 0, 'rolled back')
  t.equal(await count(database, 'categories'), 0, 'rolled back')

  // a line that turns into another record type is caught where it is read
  let typed = 0
  const retyped = () => { typed++; return [category, typed === 1 ? profile('u1') : rec({ type: 'follow', profileId: 'p-1', accountId: 'a', since: '2025-01-01' })] }
  await t.rejects(createIngestService({ database }).importLines(retyped), { message: 'line 2 changed during the import' })
  t.equal(await count(database, 'categories'), 0, 'rolled back')
})
