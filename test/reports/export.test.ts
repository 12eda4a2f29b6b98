// GET /report/{id}/export and /report/{id}/export.csv (Bearer): a ready report as a download. JSON is
// GET /report/{id} plus everything the report stores per profile; CSV (RFC 4180) has one row per
// (source, interest), or per (source, friend) with part=friends, the API's numbers unrounded and
// formula-like text defused; /export?format=csv answers the same CSV.
// The CSV is read back with a parser of its own here and compared, number by number, with the JSON
// the API serves for the same report.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, signedInUser } from '../helper.ts'
import { accountInterests, accounts, follows, interests, profiles } from '../../src/db/schema/index.ts'
import { eq } from 'drizzle-orm'
import { createReport, waitForStatus } from './report-wait.ts'
import { MONTH_START, seedReportData } from './seed.ts'

const API = '/api/v1'
// text a spreadsheet would run, with every character RFC 4180 quotes
const EVIL_INTEREST = '=HYPERLINK("https://evil.example","click"), then\r\na second line'
const EVIL_FRIEND = '+Alice, "the" friend'

/** RFC 4180: fields separated by commas, records by CRLF, a quoted field may hold anything ("" is a quote) */
function parseCsv (text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let i = 0
  let quoted = false
  while (i < text.length) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue }
      if (c === '"') { quoted = false; i++; continue }
      field += c
      i++
      continue
    }
    if (c === '"' && field === '') { quoted = true; i++; continue }
    if (c === ',') { record.push(field); field = ''; i++; continue }
    if (c === '\r' && text[i + 1] === '\n') { record.push(field); records.push(record); record = []; field = ''; i += 2; continue }
    if (c === '"' || c === '\n' || c === '\r') throw new Error(`not RFC 4180 at ${i}: ${JSON.stringify(text.slice(i - 20, i + 20))}`)
    field += c
    i++
  }
  if (field !== '' || record.length) throw new Error('the last record does not end with CRLF')
  return records
}

const rowsOf = (text: string) => {
  const [header, ...rows] = parseCsv(text)
  return rows.map((r) => Object.fromEntries(header.map((h, k) => [h, r[k]])))
}

interface Interest { id: string, name: string, share: number, relative: number, category?: string, redCatId?: string }
interface Category { name: string, interests: Interest[] }
interface Friend { id: string, username: string, fullname: string, link: string, count: number, redFlagsCount: number }

async function readyReport (t: Test, app: FastifyInstance) {
  await seedReportData(app.db)
  // a name from the profile data that a spreadsheet would run as a formula, quotes and line breaks included
  await app.db.insert(interests).values({ id: 'i-evil', name: EVIL_INTEREST, categoryId: 'c-music', redFlagId: null })
  await app.db.insert(accounts).values({ id: 'a-5', source: 'ig', username: 'evil', fullname: 'Evil', image: null })
  await app.db.insert(accountInterests).values({ accountId: 'a-5', interestId: 'i-evil' })
  await app.db.insert(follows).values({ profileId: 'p-1', accountId: 'a-5', since: MONTH_START(2), until: null })
  await app.db.update(profiles).set({ fullname: EVIL_FRIEND }).where(eq(profiles.id, 'p-2'))
  const u = await signedInUser(app)
  const id = await createReport(app, u.auth, [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }])
  t.equal((await app.inject({ method: 'POST', url: `${API}/report/${id}/generate`, headers: u.auth })).statusCode, 202)
  const ready = await waitForStatus(app, u.auth, id, ['ready', 'failed'])
  t.equal(ready.json().status, 'ready', ready.body)
  return { u, id, report: ready.json() }
}

t.test('JSON: the report as GET /report/{id} gives it, plus every stored tree, friend list and diff', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  const { u, id, report } = await readyReport(t, app)
  const get = (url: string) => app.inject({ url: `${API}${url}`, headers: u.auth })

  for (const url of [`/report/${id}/export`, `/report/${id}/export?format=json`]) {
    const res = await get(url)
    t.equal(res.statusCode, 200, res.body.slice(0, 200))
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.headers['content-disposition'], `attachment; filename="report-${id}.json"`)
    t.match(res.headers['cache-control'], /no-store/)
    const { details, ...rest } = res.json()
    t.same(rest, report, 'the report as GET /report/{id} answers it')
    t.same(details.map((d: { source: string }) => d.source), ['ig', 'fb'], 'one entry per profile, in the order of items')
    for (const d of details) {
      t.same(d.interests, (await get(`/report/${id}/interests?source=${d.source}`)).json().items, `${d.source}: the full tree`)
      t.same(d.diffs, (await get(`/report/${id}/diffs?source=${d.source}&limit=100`)).json().items, `${d.source}: every diff month`)
      for (const [list, sortByRedFlags] of [['common', false], ['redFlags', true]] as const) {
        const page = (await get(`/report/${id}/friends?source=${d.source}&sortByRedFlags=${sortByRedFlags}&limit=100`)).json()
        // the API serves the other list when the one asked for is empty (sortByRedFlagsAdjusted)
        t.same(d.friends[list], page.sortByRedFlags === sortByRedFlags ? page.items : [], `${d.source}: the ${list} list`)
      }
    }
    t.ok(details[0].friends.common.length > 0 && details[0].diffs.length > 0, 'the seed has friends and diffs to compare')
  }
})

t.test('CSV: one row per (source, interest), and per (source, friend), the API\'s numbers to the last digit', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  const { u, id } = await readyReport(t, app)
  const get = (url: string) => app.inject({ url: `${API}${url}`, headers: u.auth })

  const res = await get(`/report/${id}/export.csv`)
  t.equal(res.statusCode, 200, res.body.slice(0, 200))
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/)
  t.equal(res.headers['content-disposition'], `attachment; filename="report-${id}.csv"`)
  t.equal(res.body.split('\r\n')[0], 'source,interest_id,interest,category,share,relative,red_flag', 'the header row')
  const rows = rowsOf(res.body)

  const expected: Array<{ source: string, category: Category, interest: Interest }> = []
  for (const source of ['ig', 'fb']) {
    const tree = (await get(`/report/${id}/interests?source=${source}`)).json().items as Category[]
    for (const category of tree) for (const interest of category.interests) expected.push({ source, category, interest })
  }
  t.equal(rows.length, expected.length, `${rows.length} rows: every interest of every tree`)
  rows.forEach((row, k) => {
    const { source, category, interest } = expected[k]
    const name = interest.name.startsWith('=') ? `'${interest.name}` : interest.name
    t.same([row.source, row.interest_id, row.interest, row.category], [source, interest.id, name, category.name], `row ${k}: ${interest.id}`)
    t.equal(Number(row.share), interest.share, `${interest.id}: share ${row.share}`)
    t.equal(Number(row.relative), interest.relative, `${interest.id}: relative ${row.relative}`)
    t.equal(row.share, String(interest.share), 'as JavaScript prints it')
    t.equal(row.red_flag, interest.redCatId ? interest.category : '', 'the red-flag bucket, or nothing')
  })
  t.ok(rows.some((r) => r.red_flag === 'Violence'), 'a red flag is in the file')
  t.ok(rows.some((r) => r.interest === `'${EVIL_INTEREST}`), 'formula-like text: a leading quote, its commas, quotes and line break kept')
  t.ok(rows.some((r) => r.category === 'Misc'), 'a synthetic category is still named')

  const friends = await get(`/report/${id}/export.csv?part=friends`)
  t.equal(friends.statusCode, 200)
  t.equal(friends.headers['content-disposition'], `attachment; filename="report-${id}-friends.csv"`)
  t.equal(friends.body.split('\r\n')[0], 'source,friend_id,username,fullname,link,common_interests,red_flags')
  const friendRows = rowsOf(friends.body)
  const apiFriends = new Map<string, Friend>()
  for (const source of ['ig', 'fb']) {
    for (const sortByRedFlags of [false, true]) {
      for (const f of (await get(`/report/${id}/friends?source=${source}&sortByRedFlags=${sortByRedFlags}&limit=100`)).json().items as Friend[]) apiFriends.set(`${source}/${f.id}`, f)
    }
  }
  t.equal(friendRows.length, apiFriends.size, 'every friend of either list, once')
  for (const row of friendRows) {
    const f = apiFriends.get(`${row.source}/${row.friend_id}`)!
    t.ok(f, `${row.friend_id} is a friend the API lists`)
    const fullname = /^[=+\-@]/.test(f.fullname) ? `'${f.fullname}` : f.fullname
    t.same([row.username, row.fullname, row.link, Number(row.common_interests), Number(row.red_flags)], [f.username, fullname, f.link, f.count, f.redFlagsCount])
  }
  t.ok(friendRows.some((r) => r.fullname === `'${EVIL_FRIEND}`), 'a friend\'s name that starts with + is defused')
})

t.test('the rules of GET /report/{id}: 401, 403, 404, not ready; 400 for another format', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  const { u, id } = await readyReport(t, app)
  const other = await signedInUser(app)
  const status = async (url: string, headers: Record<string, string> = u.auth) => {
    const res = await app.inject({ url: `${API}${url}`, headers })
    return [res.statusCode, res.json().message]
  }
  for (const path of ['export', 'export.csv']) {
    t.same(await status(`/report/${id}/${path}`, {}), [401, 'access denied'], `${path}: no token`)
    t.same(await status(`/report/${id}/${path}`, other.auth), [403, 'access denied'], `${path}: another user's report`)
    t.same(await status(`/report/00000000-0000-4000-8000-000000000000/${path}`), [404, 'report not found'], `${path}: an unknown id`)
    t.same(await status(`/report/not-a-report/${path}`), [404, 'report not found'], `${path}: a malformed id`)
  }
  t.equal((await status(`/report/${id}/export?format=xml`))[0], 400, 'another format')
  t.equal((await status(`/report/${id}/export?format=csv&part=everything`))[0], 400, 'another part')
  t.equal((await status(`/report/${id}/export.csv?part=everything`))[0], 400, 'another part of the CSV')
  t.same(await status(`/report/${id}/export?format=json&part=friends`), [400, 'querystring part: only with format=csv'])
  t.equal((await status(`/report/${id}/export?format=csv&extra=1`))[0], 400, 'an unknown parameter')
  t.equal((await status(`/report/${id}/export.csv?format=csv`))[0], 400, 'the CSV takes no format')
  const draft = await createReport(app, u.auth, [{ source: 'ig', username: 'jdoe' }])
  t.same(await status(`/report/${draft}/export.csv`), [404, 'the report is not ready'], 'a draft has nothing to export')
  t.same(await status(`/report/${draft}/export`, other.auth), [403, 'access denied'], 'ownership first')
  t.same(await status(`/report/${draft}/export.csv`, other.auth), [403, 'access denied'], 'ownership first, for the CSV too')
})

t.test('/export?format=csv answers what /export.csv answers, with the same part and file name', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  const { u, id } = await readyReport(t, app)
  for (const [query, same] of [['format=csv', `${API}/report/${id}/export.csv`], ['format=csv&part=friends', `${API}/report/${id}/export.csv?part=friends`],
    ['part=interests&format=csv', `${API}/report/${id}/export.csv?part=interests`]]) {
    const res = await app.inject({ url: `${API}/report/${id}/export?${query}`, headers: u.auth })
    const csv = await app.inject({ url: same, headers: u.auth })
    t.equal(res.statusCode, 200, query)
    t.match(res.headers['content-type'], /^text\/csv/)
    t.equal(res.headers['content-disposition'], csv.headers['content-disposition'], `${query}: the file name`)
    t.equal(res.body, csv.body, `${query}: the same CSV`)
  }
})
