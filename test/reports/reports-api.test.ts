import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { waitForStatus as waitFor } from './report-wait.ts'
import { seedReportData } from './seed.ts'

t.test('create, generate, read a report end to end', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  await seedReportData(app.db)
  const u = await signedInUser(app)

  const created = await app.inject({
    method: 'POST', url: '/api/v1/report', headers: u.auth,
    payload: { profiles: [{ source: 'fb', username: 'JOHN.DOE' }, { source: 'ig', username: 'jdoe' }] }
  })
  t.equal(created.statusCode, 201, created.body)
  const report = created.json()
  t.equal(report.status, 'draft')
  t.same(report.profiles.map((p: { source: string }) => p.source), ['ig', 'fb'], 'source order')
  t.equal(report.profiles[0].username, 'JDoe', 'the stored username, found case-insensitively')

  const gen = await app.inject({ method: 'POST', url: `/api/v1/report/${report.id}/generate`, headers: u.auth })
  t.equal(gen.statusCode, 202, gen.body)
  t.same(gen.json(), { id: report.id, status: 'queued' })

  const ready = await waitFor(app, u.auth, report.id, ['ready', 'failed'])
  const body = ready.json()
  t.equal(body.status, 'ready', ready.body)
  t.equal(body.items.length, 2)
  t.equal(body.items[0].source, 'ig')
  t.ok(ready.headers.etag)
  const again = await app.inject({ url: `/api/v1/report/${report.id}`, headers: { ...u.auth, 'if-none-match': ready.headers.etag as string } })
  t.equal(again.statusCode, 304)

  const info = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.json().reportCredits, 0, 'one credit consumed')

  const interests = await app.inject({ url: `/api/v1/report/${report.id}/interests?source=ig`, headers: u.auth })
  t.equal(interests.statusCode, 200, interests.body)
  t.equal(interests.json().source, 'ig')
  const friends = await app.inject({ url: `/api/v1/report/${report.id}/friends?limit=1`, headers: u.auth })
  t.equal(friends.statusCode, 200, friends.body)
  t.equal(friends.json().items.length, 1)
  const diffs = await app.inject({ url: `/api/v1/report/${report.id}/diffs?source=ig`, headers: u.auth })
  t.equal(diffs.statusCode, 200, diffs.body)
  t.ok(diffs.json().total > 0)

  const regen = await app.inject({ method: 'POST', url: `/api/v1/report/${report.id}/generate`, headers: u.auth })
  t.equal(regen.statusCode, 403)
  t.has(regen.json(), { code: 403, message: 'access denied' })
})
