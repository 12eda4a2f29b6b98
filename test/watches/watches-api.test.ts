// Watches through the API: watch a ready report (201, the same watch again 200), stop (204), list
// with the limit that applies now; a draft 409, an unknown report 404, another user's 403; WATCH_MAX
// without a subscription and WATCH_MAX_SUBSCRIBED with one (402 past it), held under concurrent
// creates; the months a new watch has seen; and the `alerts` scope of API keys.
import t from '../tap.ts'
import { build, CHEAP_ARGON2, signedInUser } from '../helper.ts'
import { createReport, readyReport } from '../reports/report-wait.ts'
import { MONTH_START, seedReportData } from '../reports/seed.ts'
import { issueKey, FORBIDDEN } from '../api-keys/support.ts'
import { toMonth } from '../../src/engine/index.ts'
import { reportRow, subscribe, userIdOf } from './support.ts'

const app = await build(t, { ...CHEAP_ARGON2, WORKERS: '1', SIGNUP_FREE_REPORTS: '10', WATCH_MAX: '5', WATCH_MAX_SUBSCRIBED: '7' })
await seedReportData(app.db)
await app.database.query("insert into profiles (id, source, username, fullname, link) values ('p-quiet', 'tw', 'quiet', 'Quiet', 'https://tw.example/quiet')")

const watchUrl = (id: string) => `/api/v1/report/${id}/watch`
const watch = (auth: Record<string, string>, id: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: watchUrl(id), headers: { ...auth, ...headers } })
const unwatch = (auth: Record<string, string>, id: string) => app.inject({ method: 'DELETE', url: watchUrl(id), headers: auth })
const list = (auth: Record<string, string>, query = '') => app.inject({ url: `/api/v1/watches${query}`, headers: auth })
const seenMonths = async (watchId: string) => Object.fromEntries((await app.database.query<{ source: string, profile_id: string, seen_month: number }>(
  'select source, profile_id, seen_month from watch_profiles where watch_id = $1', [watchId])).map((r) => [r.source, [r.profile_id, Number(r.seen_month)]]))

t.test('watch a generated report, the same watch again, list, stop, watch again', async (t) => {
  const u = await signedInUser(app)
  const reportId = await readyReport(app, u.auth, [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }])

  const made = await watch(u.auth, reportId)
  t.equal(made.statusCode, 201, made.body)
  const w = made.json()
  t.same(Object.keys(w).sort(), ['createdAt', 'id', 'reportId'])
  t.equal(w.reportId, reportId)
  const again = await watch(u.auth, reportId)
  t.equal(again.statusCode, 200, 'the same watch again')
  t.same(again.json(), w)

  t.same(await seenMonths(w.id), { ig: ['p-1', toMonth(MONTH_START(1))], fb: ['p-4', toMonth(MONTH_START(2))] },
    'each profile has seen the latest month its follows name')

  const listed = await list(u.auth)
  t.equal(listed.statusCode, 200)
  t.same(listed.json(), { items: [w], total: 1, hasMore: false, limit: 5 })

  const gone = await unwatch(u.auth, reportId)
  t.equal(gone.statusCode, 204)
  t.equal(gone.body, '')
  const goneAgain = await unwatch(u.auth, reportId)
  t.has([goneAgain.statusCode, goneAgain.json()], [404, { code: 404, message: 'the report is not watched' }])
  t.same((await list(u.auth)).json(), { items: [], total: 0, hasMore: false, limit: 5 })
  t.same(await seenMonths(w.id), {}, 'its profiles went with it')

  const anew = await watch(u.auth, reportId)
  t.equal(anew.statusCode, 201)
  t.not(anew.json().id, w.id, 'a new watch')

  const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/report/${reportId}`, headers: u.auth })
  t.equal(deleted.statusCode, 204)
  t.same((await list(u.auth)).json().items, [], 'deleting the report ends its watch')
})

t.test('a profile without follows has seen the month the report was generated in', async (t) => {
  const u = await signedInUser(app)
  const reportId = await reportRow(app, userIdOf(u.token), {
    profiles: [{ source: 'tw', profileId: 'p-quiet', username: 'quiet' }], generatedAt: new Date('2024-03-15T12:00:00Z')
  })
  const made = await watch(u.auth, reportId)
  t.equal(made.statusCode, 201, made.body)
  t.same(await seenMonths(made.json().id), { tw: ['p-quiet', 2024 * 12 + 2] })
})

t.test('what cannot be watched: a draft 409, an unknown report 404, a malformed id 404 as on every route, another user\'s 403', async (t) => {
  const u = await signedInUser(app)
  const other = await signedInUser(app)
  const draft = await createReport(app, u.auth)
  const refused = await watch(u.auth, draft)
  t.has([refused.statusCode, refused.json()], [409, { code: 409, message: 'report not ready' }])
  for (const status of ['queued', 'generating', 'failed']) {
    const id = await reportRow(app, userIdOf(u.token), { status })
    t.equal((await watch(u.auth, id)).statusCode, 409, status)
  }

  const unknown = await watch(u.auth, '00000000-0000-4000-8000-000000000000')
  t.has([unknown.statusCode, unknown.json()], [404, { code: 404, message: 'report not found' }])
  t.equal((await watch(u.auth, 'not-a-uuid')).statusCode, 404, 'a malformed id names nothing: 404, as on /report/{id}')
  t.equal((await unwatch(u.auth, '00000000-0000-4000-8000-000000000000')).statusCode, 404)

  const mine = await reportRow(app, userIdOf(u.token))
  t.equal((await watch(u.auth, mine)).statusCode, 201)
  const theirs = await watch(other.auth, mine)
  t.has([theirs.statusCode, theirs.json()], [403, FORBIDDEN], 'another user\'s report')
  const stop = await unwatch(other.auth, mine)
  t.has([stop.statusCode, stop.json()], [403, FORBIDDEN], 'another user\'s watch')
  t.equal((await list(u.auth)).json().total, 1, 'the watch is still there')
  t.equal((await list(other.auth)).json().total, 0, 'and not in the other user\'s list')
  t.equal((await unwatch(u.auth, draft)).statusCode, 404, 'an own report that is not watched')
})

t.test('WATCH_MAX without a subscription, WATCH_MAX_SUBSCRIBED with one; 402 past it', async (t) => {
  const u = await signedInUser(app)
  const userId = userIdOf(u.token)
  const ids: string[] = []
  for (let i = 0; i < 8; i++) ids.push(await reportRow(app, userId))
  for (const id of ids.slice(0, 5)) t.equal((await watch(u.auth, id)).statusCode, 201)
  const over = await watch(u.auth, ids[5])
  t.has([over.statusCode, over.json()], [402, { code: 402, message: 'payment required' }])
  t.equal((await watch(u.auth, ids[0])).statusCode, 200, 'a watch it holds, at the limit: 200')
  t.match((await list(u.auth)).json(), { total: 5, limit: 5 })

  await subscribe(app, userId)
  t.equal((await list(u.auth)).json().limit, 7, 'the subscribed limit')
  t.equal((await watch(u.auth, ids[5])).statusCode, 201)
  t.equal((await watch(u.auth, ids[6])).statusCode, 201)
  t.equal((await watch(u.auth, ids[7])).statusCode, 402)

  await app.database.query("update subscriptions set status = 'canceled' where user_id = $1", [userId])
  const after = (await list(u.auth)).json()
  t.match(after, { total: 7, limit: 5 }, 'the subscription ended: the watches stay, the limit is WATCH_MAX again')
  await unwatch(u.auth, ids[0])
  t.equal((await watch(u.auth, ids[7])).statusCode, 402, 'still over the limit after one less')
})

t.test('concurrent creates: the limit holds, and one report gets one watch', async (t) => {
  const u = await signedInUser(app)
  const userId = userIdOf(u.token)
  const ids: string[] = []
  for (let i = 0; i < 8; i++) ids.push(await reportRow(app, userId))
  const answers = await Promise.all(ids.map((id) => watch(u.auth, id)))
  const codes = answers.map((a) => a.statusCode).sort()
  t.same(codes, [201, 201, 201, 201, 201, 402, 402, 402])
  const [{ n }] = await app.database.query<{ n: string | number }>('select count(*) as n from watches where user_id = $1', [userId])
  t.equal(Number(n), 5)

  const v = await signedInUser(app)
  const one = await reportRow(app, userIdOf(v.token))
  const same = await Promise.all([1, 2, 3, 4].map(() => watch(v.auth, one)))
  t.same(same.map((a) => a.statusCode).sort(), [200, 200, 200, 201])
  t.equal(new Set(same.map((a) => a.json().id)).size, 1, 'every answer is the one watch')
})

t.test('paging: newest first', async (t) => {
  const u = await signedInUser(app)
  const userId = userIdOf(u.token)
  const made: string[] = []
  for (let i = 0; i < 3; i++) made.push((await watch(u.auth, await reportRow(app, userId))).json().id)
  const first = (await list(u.auth, '?limit=2')).json()
  t.same(first.items.map((w: { id: string }) => w.id), [made[2], made[1]])
  t.match(first, { total: 3, hasMore: true, limit: 5 })
  const second = (await list(u.auth, '?offset=2&limit=2')).json()
  t.same(second.items.map((w: { id: string }) => w.id), [made[0]])
  t.match(second, { total: 3, hasMore: false })
  t.equal((await list(u.auth, '?limit=101')).statusCode, 400)
})

t.test('an Idempotency-Key replays the first answer', async (t) => {
  const u = await signedInUser(app)
  const id = await reportRow(app, userIdOf(u.token))
  const first = await watch(u.auth, id, { 'idempotency-key': 'watch-once' })
  const replay = await watch(u.auth, id, { 'idempotency-key': 'watch-once' })
  t.equal(first.statusCode, 201)
  t.equal(replay.statusCode, 201)
  t.equal(replay.headers['idempotent-replayed'], 'true')
  t.same(replay.json(), first.json())
})

t.test('API keys: the `alerts` scope watches, lists and stops as the owner; any other scope 403', async (t) => {
  const u = await signedInUser(app)
  const id = await reportRow(app, userIdOf(u.token))
  for (const scope of ['reports:read', 'reports:write', 'profiles:read', 'webhooks']) {
    const key = await issueKey(app, u.auth, { name: scope, scopes: [scope] })
    const answers = { POST: await watch(key.auth, id), GET: await list(key.auth), DELETE: await unwatch(key.auth, id) }
    for (const [method, res] of Object.entries(answers)) t.has([res.statusCode, res.json()], [403, FORBIDDEN], `${method} with ${scope}`)
  }
  const key = await issueKey(app, u.auth, { name: 'alerts', scopes: ['alerts'] })
  const made = await watch(key.auth, id)
  t.equal(made.statusCode, 201)
  t.same((await list(key.auth)).json(), (await list(u.auth)).json(), 'the owner\'s list')
  t.equal((await unwatch(key.auth, id)).statusCode, 204)
})
