// Alerts through the API: the list newest first with its unread count (whatever the filter), paging,
// the unread filter, marking one read and all read, another user's alert 404 and absent from their
// list, and the `alerts` scope of API keys. The alerts are raised by recordAlerts, as the worker raises them.
import t from '../tap.ts'
import { build, CHEAP_ARGON2, signedInUser, type SignedInUser } from '../helper.ts'
import { seedReportData } from '../reports/seed.ts'
import { issueKey, FORBIDDEN } from '../api-keys/support.ts'
import { recordAlerts } from '../../src/services/alerts/record.ts'
import { alertsFor, raiseAlerts, reportRow, userIdOf } from '../watches/support.ts'

const app = await build(t, { ...CHEAP_ARGON2 })
await seedReportData(app.db)

const get = (auth: Record<string, string>, query = '') => app.inject({ url: `/api/v1/alerts${query}`, headers: auth })
const readOne = (auth: Record<string, string>, id: string) => app.inject({ method: 'POST', url: `/api/v1/alerts/${id}/read`, headers: auth })
const readAll = (auth: Record<string, string>) => app.inject({ method: 'POST', url: '/api/v1/alerts/read', headers: auth })

/** a user with a watched ready report and an alert for each of these months, oldest first */
async function userWithAlerts (months: string[]): Promise<{ u: SignedInUser, reportId: string, ids: string[] }> {
  const u = await signedInUser(app)
  const userId = userIdOf(u.token)
  const reportId = await reportRow(app, userId)
  const made = await app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/watch`, headers: u.auth })
  if (made.statusCode !== 201) throw new Error(`watch failed: ${made.body}`)
  const raised = await raiseAlerts(app, { userId, watchId: made.json().id, reportId }, months)
  return { u, reportId, ids: raised.map((r) => r.alert.id) }
}

const MONTHS = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05']

t.test('the list: newest first, paged, the unread count; one read, then all', async (t) => {
  const { u, reportId, ids } = await userWithAlerts(MONTHS)
  const all = await get(u.auth)
  t.equal(all.statusCode, 200, all.body)
  const body = all.json()
  t.same(body.items.map((a: { id: string }) => a.id), [...ids].reverse(), 'newest first')
  t.match(body, { total: 5, hasMore: false, unread: 5 })
  t.match(body.items[0], { reportId, source: 'ig', username: 'JDoe', month: '2025-05', read: false })
  t.same(body.items[0].newRedFlags.map((i: { id: string }) => i.id), ['i-boxing'])

  const page = (await get(u.auth, '?offset=1&limit=2')).json()
  t.same(page.items.map((a: { id: string }) => a.id), [ids[3], ids[2]])
  t.match(page, { total: 5, hasMore: true, unread: 5 })

  const one = await readOne(u.auth, ids[2])
  t.equal(one.statusCode, 200)
  t.match(one.json(), { id: ids[2], month: '2025-03', read: true })
  const [{ read_at: first }] = await app.database.query<{ read_at: Date }>('select read_at from alerts where id = $1', [ids[2]])
  t.same((await readOne(u.auth, ids[2])).json(), one.json(), 'reading it again: the same answer')
  const [{ read_at: second }] = await app.database.query<{ read_at: Date }>('select read_at from alerts where id = $1', [ids[2]])
  t.same(second, first, 'the first reading\'s time is kept')

  const unread = (await get(u.auth, '?unread=true')).json()
  t.same(unread.items.map((a: { id: string }) => a.id), [ids[4], ids[3], ids[1], ids[0]])
  t.match(unread, { total: 4, hasMore: false, unread: 4 })
  const unreadPage = (await get(u.auth, '?unread=true&limit=3')).json()
  t.match(unreadPage, { total: 4, hasMore: true, unread: 4 })
  t.equal(unreadPage.items.length, 3)
  const everything = (await get(u.auth, '?unread=false')).json()
  t.match(everything, { total: 5, unread: 4 }, 'unread=false: every alert, the unread count whatever the filter')
  t.equal(everything.items.find((a: { id: string }) => a.id === ids[2]).read, true)

  const done = await readAll(u.auth)
  t.equal(done.statusCode, 200)
  t.same(done.json(), { read: 4, unread: 0 })
  t.same(await (await readAll(u.auth)).json(), { read: 0, unread: 0 }, 'again: nothing left to mark')
  const after = (await get(u.auth)).json()
  t.match(after, { total: 5, unread: 0 })
  t.ok(after.items.every((a: { read: boolean }) => a.read))
  t.match((await get(u.auth, '?unread=true')).json(), { items: [], total: 0, hasMore: false, unread: 0 })

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/report/${reportId}/watch`, headers: u.auth })).statusCode, 204)
  t.equal((await get(u.auth)).json().total, 5, 'stopping the watch keeps its alerts')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/report/${reportId}`, headers: u.auth })).statusCode, 204)
  t.equal((await get(u.auth)).json().total, 0, 'deleting the report removes them')
})

t.test('another user\'s alerts: absent from the list, 404 on read, untouched by read all', async (t) => {
  const mine = await userWithAlerts(['2025-01', '2025-02'])
  const other = await userWithAlerts(['2025-03'])
  const listed = (await get(other.u.auth)).json()
  t.same(listed.items.map((a: { id: string }) => a.id), other.ids)
  t.match(listed, { total: 1, unread: 1 })

  const refused = await readOne(other.u.auth, mine.ids[0])
  t.has([refused.statusCode, refused.json()], [404, { code: 404, message: 'alert not found' }])
  t.equal((await readOne(other.u.auth, '00000000-0000-4000-8000-000000000000')).statusCode, 404, 'an unknown alert')
  t.equal((await readOne(other.u.auth, 'not-a-uuid')).statusCode, 404, 'a malformed id names nothing: 404')
  t.same((await readAll(other.u.auth)).json(), { read: 1, unread: 0 })
  t.match((await get(mine.u.auth)).json(), { total: 2, unread: 2 }, 'the first user\'s alerts are still unread')
})

t.test('a user without alerts', async (t) => {
  const u = await signedInUser(app)
  t.same((await get(u.auth)).json(), { items: [], total: 0, hasMore: false, unread: 0 })
  t.equal((await get(u.auth, '?limit=0')).statusCode, 400)
  t.same((await readAll(u.auth)).json(), { read: 0, unread: 0 })
})

t.test('API keys: the `alerts` scope reads and marks as the owner; any other scope 403', async (t) => {
  const { u, ids } = await userWithAlerts(['2025-01', '2025-02'])
  for (const scope of ['reports:read', 'reports:write', 'profiles:read', 'webhooks']) {
    const key = await issueKey(app, u.auth, { name: scope, scopes: [scope] })
    for (const res of [await get(key.auth), await readOne(key.auth, ids[0]), await readAll(key.auth)]) {
      t.has([res.statusCode, res.json()], [403, FORBIDDEN], `with ${scope}`)
    }
  }
  t.match((await get(u.auth)).json(), { unread: 2 }, 'nothing was marked')
  const key = await issueKey(app, u.auth, { name: 'alerts', scopes: ['alerts'] })
  t.same((await get(key.auth)).json(), (await get(u.auth)).json(), 'the owner\'s list')
  t.match((await readOne(key.auth, ids[0])).json(), { id: ids[0], read: true })
  t.same((await readAll(key.auth)).json(), { read: 1, unread: 0 })
})

t.test('raising for two users at once: one NOTIFY alerts per user with their last seq', async (t) => {
  const a = await userWithAlerts([])
  const b = await userWithAlerts([])
  const heard: string[] = []
  const unlisten = await app.database.listen('alerts', (payload) => heard.push(payload))
  t.teardown(unlisten)
  const watchOf = async (reportId: string) => (await app.database.query<{ id: string, user_id: string }>(
    'select id, user_id from watches where report_id = $1', [reportId]))[0]
  const [wa, wb] = [await watchOf(a.reportId), await watchOf(b.reportId)]
  const raised = await app.db.transaction(async (tx) => await recordAlerts(tx, [
    ...alertsFor({ userId: wa.user_id, watchId: wa.id, reportId: a.reportId }, ['2025-01', '2025-02']),
    ...alertsFor({ userId: wb.user_id, watchId: wb.id, reportId: b.reportId }, ['2025-01'])
  ], new Date(), [0]))
  t.equal(raised.length, 3)
  const until = Date.now() + 10_000
  while (heard.length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(heard.sort(), [`${wa.user_id}:2`, `${wb.user_id}:1`].sort())
})
