// Collector feeds: a file is a stream of upserts. A record whose key came earlier replaces it (the
// last wins), the two orders of a friendship are one key, and the summary says what the import did
// to the database (inserted, updated, unchanged per record type).
import t from '../tap.ts'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../src/db/client.ts'
import { computeReport } from '../../src/engine/index.ts'
import { loadReportInput } from '../../src/services/reports/loader.ts'
import { createIngestService } from '../../src/services/ingest/index.ts'
import { freshDatabase } from '../helper.ts'

type Rec = Record<string, unknown>
const rec = (r: Rec) => JSON.stringify(r)

function tempFile (t: { teardown: (fn: () => void) => void }, lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pir-ingest-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'data.ndjson')
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

const TABLES = {
  categories: 'id', red_flags: 'id', interests: 'id', accounts: 'id', account_interests: 'account_id, interest_id',
  profiles: 'id', follows: 'profile_id, account_id', friendships: 'a, b'
}

/** every profile-data row (contents only) */
async function contents (database: Database) {
  const out: Record<string, unknown[]> = {}
  for (const [table, order] of Object.entries(TABLES)) {
    const columns = table === 'follows' ? 'profile_id, account_id, since::text, until::text' : '*'
    out[table] = await database.query(`select ${columns} from ${table} order by ${order}`)
  }
  return out
}

const PROFILES = 12
const ACCOUNTS = 20
const month = (back: number) => {
  const d = new Date()
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1)).toISOString().slice(0, 10)
}

/** a small graph as a collector exports it (messy) and as one record per key, the last (clean) */
function feed (): { messy: string[], clean: string[] } {
  const clean: Rec[] = []
  const messy: Rec[] = []
  const both = (r: Rec) => { clean.push(r); messy.push(r) }
  // a category renamed later in the feed: the last name wins
  messy.push({ type: 'category', id: 'c-0', name: 'Old name', synthetic: false })
  for (let c = 0; c < 3; c++) both({ type: 'category', id: `c-${c}`, name: `Category ${c}`, synthetic: c === 2 })
  both({ type: 'redflag', id: 'rf-0', label: 'Flag' })
  for (let i = 0; i < 6; i++) both({ type: 'interest', id: `i-${i}`, name: `Interest ${i}`, categoryId: `c-${i % 3}`, redFlagId: i === 4 ? 'rf-0' : null })
  for (let a = 0; a < ACCOUNTS; a++) {
    const account = { type: 'account', id: `a-${a}`, source: 'ig', username: `acc${a}`, fullname: `Account ${a}`, image: null, interests: [`i-${a % 6}`, `i-${(a + 1) % 6}`] }
    // an account seen before with other interests
    if (a % 4 === 0) messy.push({ ...account, interests: [`i-${(a + 3) % 6}`] })
    both(account)
  }
  for (let p = 0; p < PROFILES; p++) {
    const profile = { type: 'profile', id: `p-${p}`, source: p % 3 === 0 ? 'fb' : 'ig', username: `user${p}`, fullname: `User ${p}`, image: null, link: `https://x.example/u${p}` }
    both(profile)
    // identical repeats change nothing
    if (p % 5 === 0) messy.push(profile)
  }
  for (let p = 0; p < PROFILES; p++) {
    for (let j = 0; j < 5; j++) {
      const follow = { type: 'follow', profileId: `p-${p}`, accountId: `a-${(p * 3 + j) % ACCOUNTS}`, since: month(6 - j), until: null as string | null }
      if (j % 2 === 0) {
        // first seen open, then closed by a later record
        messy.push(follow)
        const closed = { ...follow, until: month(1) }
        messy.push(closed)
        clean.push(closed)
      } else {
        both(follow)
      }
    }
  }
  // friendships exported from both sides
  for (let p = 0; p < PROFILES; p++) {
    for (const d of [1, 4]) {
      const q = (p + d) % PROFILES
      clean.push({ type: 'friend', a: `p-${p}`, b: `p-${q}` })
      messy.push({ type: 'friend', a: `p-${p}`, b: `p-${q}` })
    }
  }
  for (let p = 0; p < PROFILES; p++) for (const d of [1, 4]) messy.push({ type: 'friend', a: `p-${(p + d) % PROFILES}`, b: `p-${p}` })
  return { messy: messy.map(rec), clean: clean.map(rec) }
}

t.test('a feed with both orders of every friendship and repeated records imports as its last records', async (t) => {
  const { messy, clean } = feed()
  const [dbMessy, dbClean] = [await freshDatabase(t), await freshDatabase(t)]
  const out = await createIngestService({ database: dbMessy }).importFile(tempFile(t, messy))
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.equal(out.written, true)
  t.equal(out.replaced, messy.length - clean.length, 'every repeated key replaced an earlier record')
  const ref = await createIngestService({ database: dbClean }).importFile(tempFile(t, clean))
  t.equal(ref.replaced, 0)
  t.same(out.imported, ref.imported, 'one record per key')
  t.same(out.imported, { category: 3, redflag: 1, interest: 6, account: ACCOUNTS, profile: PROFILES, follow: PROFILES * 5, friend: PROFILES * 2 })

  const rows = await contents(dbMessy)
  t.same(rows, await contents(dbClean), 'the database holds what the deduplicated file gives')
  t.equal(rows.friendships.length, PROFILES * 2, 'one row per unordered pair')
  t.same(await dbMessy.query("select name from categories where id = 'c-0'"), [{ name: 'Category 0' }], 'the later category wins')
  t.same(await dbMessy.query("select until::text from follows where profile_id = 'p-0' and account_id = 'a-0'"), [{ until: month(1) }],
    'the follow closed by a later record is closed')
  t.same(await dbMessy.query("select interest_id from account_interests where account_id = 'a-0' order by 1"),
    [{ interest_id: 'i-0' }, { interest_id: 'i-1' }], 'the later interest set of an account wins')

  // a report built on each: the same
  const ids = ['p-0', 'p-1', 'p-3']
  const m = month(0).slice(0, 7)
  const fromMessy = computeReport(await loadReportInput(dbMessy, ids, m))
  const fromClean = computeReport(await loadReportInput(dbClean, ids, m))
  t.ok(fromMessy.length === 3)
  t.same(fromMessy, fromClean, 'the same report')
})

t.test('the summary counts inserted, updated and unchanged keys per record type', async (t) => {
  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  const { clean } = feed()
  const file = tempFile(t, clean)
  const first = await ingest.importFile(file)
  for (const [type, n] of Object.entries(first.imported)) {
    t.same(first.summary[type as keyof typeof first.summary], { inserted: n, updated: 0, unchanged: 0 }, `${type}: all inserted`)
  }
  const again = await ingest.importFile(file)
  for (const [type, n] of Object.entries(again.imported)) {
    t.same(again.summary[type as keyof typeof again.summary], { inserted: 0, updated: 0, unchanged: n }, `${type}: all unchanged`)
  }

  const changed = tempFile(t, [
    rec({ type: 'category', id: 'c-1', name: 'Renamed', synthetic: false }),
    rec({ type: 'category', id: 'c-9', name: 'New', synthetic: false }),
    rec({ type: 'category', id: 'c-2', name: 'Category 2', synthetic: true }),
    // only its interests change: the account is updated
    rec({ type: 'account', id: 'a-1', source: 'ig', username: 'acc1', fullname: 'Account 1', image: null, interests: ['i-5'] }),
    // its row and its interests change: updated once
    rec({ type: 'account', id: 'a-2', source: 'ig', username: 'acc2', fullname: 'Renamed', image: null, interests: [] }),
    rec({ type: 'account', id: 'a-3', source: 'ig', username: 'acc3', fullname: 'Account 3', image: null, interests: ['i-3', 'i-4'] }),
    rec({ type: 'account', id: 'a-99', source: 'ig', username: 'acc99', fullname: 'New', image: null, interests: ['i-1'] }),
    rec({ type: 'follow', profileId: 'p-1', accountId: 'a-4', since: month(5), until: month(2) }),
    rec({ type: 'follow', profileId: 'p-1', accountId: 'a-4', since: month(5), until: month(1) }),
    rec({ type: 'follow', profileId: 'p-1', accountId: 'a-99', since: month(5) }),
    rec({ type: 'friend', a: 'p-1', b: 'p-0' }),
    rec({ type: 'friend', a: 'p-1', b: 'p-7' })
  ])
  const out = await ingest.importFile(changed)
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.equal(out.replaced, 1)
  t.same(out.summary, {
    category: { inserted: 1, updated: 1, unchanged: 1 },
    redflag: { inserted: 0, updated: 0, unchanged: 0 },
    interest: { inserted: 0, updated: 0, unchanged: 0 },
    account: { inserted: 1, updated: 2, unchanged: 1 },
    profile: { inserted: 0, updated: 0, unchanged: 0 },
    follow: { inserted: 1, updated: 1, unchanged: 0 },
    friend: { inserted: 1, updated: 0, unchanged: 1 }
  })
  t.same(await database.query("select until::text from follows where profile_id = 'p-1' and account_id = 'a-4'"), [{ until: month(1) }])
})

t.test('last wins within one file: the later record is the one checked, and a username may move', async (t) => {
  const database = await freshDatabase(t)
  const profile = { type: 'profile', id: 'p-1', source: 'ig', username: 'u', fullname: 'U', image: null, link: 'https://x.example/u' }
  const file = tempFile(t, [
    rec({ type: 'category', id: 'c', name: 'C', synthetic: false }),
    rec({ type: 'interest', id: 'i', name: 'I', categoryId: 'c' }),
    rec({ type: 'interest', id: 'i', name: 'I', categoryId: 'c-gone' }),
    rec(profile),
    rec({ ...profile, username: 'renamed' }),
    // the name p-1 gave up is free again
    rec({ ...profile, id: 'p-2', username: 'U' }),
    // but not one another profile holds
    rec({ ...profile, id: 'p-3', username: 'RENAMED' })
  ])
  const out = await createIngestService({ database }).importFile(file, { skipInvalid: true })
  t.same(out.errors, [
    { line: 3, reason: 'unknown categoryId "c-gone"' },
    { line: 7, reason: 'duplicate username ig/"RENAMED" (first on line 5)' }
  ])
  t.same(await database.query('select id from interests'), [], 'the last record of a key decides: an invalid one is not replaced by the earlier')
  t.same(await database.query('select id, username from profiles order by id'), [{ id: 'p-1', username: 'renamed' }, { id: 'p-2', username: 'U' }])
})
