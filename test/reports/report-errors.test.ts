// Every error of the report routes, in the GeneralError shape.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport } from './report-wait.ts'
import { seedReportData } from './seed.ts'

t.test('ownership, unknown ids, bad bodies and paging limits', async (t) => {
  const app = await build(t)
  await seedReportData(app.db)
  const owner = await signedInUser(app)
  const other = await signedInUser(app)
  const id = await createReport(app, owner.auth)

  const routes: Array<[string, string]> = [
    ['GET', `/api/v1/report/${id}`], ['POST', `/api/v1/report/${id}/generate`], ['GET', `/api/v1/report/${id}/interests`],
    ['GET', `/api/v1/report/${id}/friends`], ['GET', `/api/v1/report/${id}/friends/p-2`], ['GET', `/api/v1/report/${id}/diffs`],
    ['DELETE', `/api/v1/report/${id}`]
  ]
  for (const [method, url] of routes) {
    const anon = await app.inject({ method: method as 'GET', url })
    t.has([anon.statusCode, anon.json()], [401, { code: 401, message: 'access denied' }], `${method} ${url} without a token`)
    const foreign = await app.inject({ method: method as 'GET', url, headers: other.auth })
    t.has([foreign.statusCode, foreign.json()], [403, { code: 403, message: 'access denied' }], `${method} ${url} of another user`)
    const unknown = await app.inject({ method: method as 'GET', url: url.replace(id, '00000000-0000-4000-8000-000000000000'), headers: owner.auth })
    t.equal(unknown.statusCode, 404, `${method} unknown id`)
    t.equal(unknown.json().code, 404)
    const garbage = await app.inject({ method: method as 'GET', url: url.replace(id, 'not-a-uuid'), headers: owner.auth })
    t.equal(garbage.statusCode, 404, `${method} malformed id`)
  }
  const list = await app.inject({ url: '/api/v1/report', headers: { authorization: 'Bearer nope' } })
  t.equal(list.statusCode, 401)

  const notFound = await app.inject({ method: 'POST', url: '/api/v1/report', headers: owner.auth, payload: { profiles: [{ source: 'ig', username: 'nobody' }] } })
  t.has([notFound.statusCode, notFound.json()], [404, { code: 404, message: 'profile not found: ig/nobody' }])
  const twice = await app.inject({ method: 'POST', url: '/api/v1/report', headers: owner.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }, { source: 'ig', username: 'alice' }] } })
  t.equal(twice.statusCode, 400)
  t.match(twice.json().message, /one profile per source/)
  for (const payload of [{}, { profiles: [] }, { profiles: [{ source: 'xx', username: 'a' }] }, { profiles: 'x' },
    { profiles: Array.from({ length: 6 }, () => ({ source: 'ig', username: 'jdoe' })) }, { profiles: [{ source: 'ig', username: 'x'.repeat(101) }] }]) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/report', headers: owner.auth, payload })
    t.equal(res.statusCode, 400, `bad body ${JSON.stringify(payload).slice(0, 60)}`)
    t.equal(res.json().code, 400)
  }
  for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
    const res = await app.inject({ url: `/api/v1/report?${q}`, headers: owner.auth })
    t.equal(res.statusCode, 400, `GET /report?${q}`)
  }
  const notReady = await app.inject({ url: `/api/v1/report/${id}/friends`, headers: owner.auth })
  t.equal(notReady.statusCode, 404, 'details of a report that is not ready')
  const friendNotReady = await app.inject({ url: `/api/v1/report/${id}/friends/p-2`, headers: owner.auth })
  t.same([friendNotReady.statusCode, friendNotReady.json().message], [404, 'the report is not ready'], 'a friend of a report that is not ready')
  const wrongSource = await app.inject({ url: `/api/v1/report/${id}/interests?source=tt`, headers: owner.auth })
  t.same([wrongSource.statusCode, wrongSource.json().message], [404, 'the report has no profile on tt'])
  const badSource = await app.inject({ url: `/api/v1/report/${id}/interests?source=zz`, headers: owner.auth })
  t.equal(badSource.statusCode, 400)

  const draft = await app.inject({ url: `/api/v1/report/${id}`, headers: owner.auth })
  t.same(draft.json(), { id, status: 'draft', progress: 0, createdAt: draft.json().createdAt, generatedAt: null, items: [] })
})

t.test('listing pages newest first; delete removes the report', async (t) => {
  const app = await build(t)
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push(await createReport(app, u.auth))
  const page1 = await app.inject({ url: '/api/v1/report?limit=2', headers: u.auth })
  t.equal(page1.statusCode, 200)
  t.same(page1.json().items.map((r: { id: string }) => r.id), [ids[2], ids[1]])
  t.same([page1.json().total, page1.json().hasMore], [3, true])
  const page2 = await app.inject({ url: '/api/v1/report?limit=2&offset=2', headers: u.auth })
  t.same(page2.json().items.map((r: { id: string }) => r.id), [ids[0]])
  t.equal(page2.json().hasMore, false)
  t.same(page2.json().items[0].profiles, [{ source: 'ig', username: 'JDoe', fullname: 'John Doe', image: 'https://img.example/p1.png' }])

  const del = await app.inject({ method: 'DELETE', url: `/api/v1/report/${ids[0]}`, headers: u.auth })
  t.equal(del.statusCode, 204)
  t.equal(del.body, '')
  const gone = await app.inject({ url: `/api/v1/report/${ids[0]}`, headers: u.auth })
  t.equal(gone.statusCode, 404)
  const events = await app.database.query('select count(*)::int as n from report_events where report_id = $1', [ids[0]])
  t.equal(events[0].n, 0)
})

t.test('credits: 402 without one, and 20 concurrent generate calls take exactly one credit and queue one job', async (t) => {
  const app = await build(t, { SIGNUP_FREE_REPORTS: '1' })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const id = await createReport(app, u.auth)
  const calls = await Promise.all(Array.from({ length: 20 }, () =>
    app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })))
  t.same(calls.map((c) => c.statusCode), Array(20).fill(202))
  const info = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.json().reportCredits, 0, 'one credit taken')
  const jobs = await app.database.query<{ n: number }>("select count(*)::int as n from pgboss.job where data->>'reportId' = $1", [id])
  t.equal(jobs[0].n, 1, 'one job queued')
  const queued = await app.database.query<{ n: number }>("select count(*)::int as n from report_events where report_id = $1 and data->>'status' = 'queued'", [id])
  t.equal(queued[0].n, 1, 'one queued event')

  const second = await createReport(app, u.auth)
  const broke = await app.inject({ method: 'POST', url: `/api/v1/report/${second}/generate`, headers: u.auth })
  t.has([broke.statusCode, broke.json()], [402, { code: 402, message: 'payment required' }])
  const still = await app.inject({ url: `/api/v1/report/${second}`, headers: u.auth })
  t.equal(still.json().status, 'draft', 'a refused generate changes nothing')
})
