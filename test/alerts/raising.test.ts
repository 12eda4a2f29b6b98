// Raising alerts (docs/decisions/watches-and-alerts.md, Watches and alerts): data pushed to POST
// /ingest that gives a watched profile later months raises one alert per new month with a change,
// equal to the diffs a report generated after the data serves; the same data again raises nothing,
// nor does data that only rewrites months already seen, nor data for a watch deleted before the
// worker ran; only the watch's user gets them. The first test runs the alert worker's loop
// (WORKERS=1); the others drive batches by hand on an app without workers, so each step is seen on
// its own.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, signedInUser } from '../helper.ts'
import { readyReport } from '../reports/report-wait.ts'
import { MONTH_START, seedReportData } from '../reports/seed.ts'
import { userIdOf } from '../watches/support.ts'
import { follow, NEW_DATA, ndjson, readyReportRow } from './data.ts'
import { alertRaiser } from '../../src/jobs/alerts.ts'
import type { Alert } from '../../schemas/alerts.ts'

const TOKEN = 'ingest-token-0123456789abcdef'

async function ingest (app: FastifyInstance, records: object[]) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/ingest',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
    payload: ndjson(records)
  })
  if (res.statusCode !== 200) throw new Error(`ingest failed: ${res.body}`)
  return res.json()
}

const alertsOf = async (app: FastifyInstance, auth: Record<string, string>): Promise<Alert[]> => {
  const res = await app.inject({ url: '/api/v1/alerts?limit=100', headers: auth })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().items
}
const pending = async (app: FastifyInstance) => (await app.database.query<{ n: number }>('select count(*)::int as n from alert_pending'))[0].n
const ids = (list: Array<{ id: string }>) => list.map((i) => i.id)

t.test('a later month raises the diffs a report generated after the data shows, only to the watch\'s user', async (t) => {
  const app = await build(t, { WORKERS: '1', INGEST_TOKEN: TOKEN, SIGNUP_FREE_REPORTS: '10' })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const other = await signedInUser(app)
  const profiles = [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }]
  const watched = await readyReport(app, u.auth, profiles)
  const w = await app.inject({ method: 'POST', url: `/api/v1/report/${watched}/watch`, headers: u.auth })
  t.equal(w.statusCode, 201, w.body)
  // the other user watches a report of a profile the data leaves alone, and has an unwatched report of the same profiles
  await readyReport(app, other.auth, profiles)
  const quiet = await readyReport(app, other.auth, [{ source: 'ig', username: 'alice' }])
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${quiet}/watch`, headers: other.auth })).statusCode, 201)

  await ingest(app, NEW_DATA)
  const until = Date.now() + 60_000
  let alerts: Alert[] = []
  while (Date.now() < until && (alerts.length < 3 || await pending(app) > 0)) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    alerts = await alertsOf(app, u.auth)
  }
  t.equal(alerts.length, 3, 'one alert per new month with a change: ig this month, fb last month and this month')
  t.same(await alertsOf(app, other.auth), [], 'nothing for the other user')

  // a report generated now, after the data: its diffs for the alerts' months
  const fresh = await readyReport(app, u.auth, profiles)
  for (const a of alerts) {
    t.equal(a.reportId, watched)
    t.equal(a.read, false)
    const res = await app.inject({ url: `/api/v1/report/${fresh}/diffs?source=${a.source}&limit=100`, headers: u.auth })
    const item = res.json().items.find((d: { date: string }) => d.date === a.month)
    t.ok(item, `${a.source} ${a.month} is in the report's diffs`)
    t.same({ new: a.new, lost: a.lost }, { new: item.new, lost: item.lost }, `${a.source} ${a.month}: the report's new and lost`)
  }
  const bySource = (s: string, month: string) => alerts.find((a) => a.source === s && a.month === month)!
  const ig = bySource('ig', MONTH_START(0).slice(0, 7))
  t.equal(ig.username, 'JDoe')
  t.same(ids(ig.new).sort(), ['i-knives', 'i-memes'])
  t.same(ids(ig.lost), ['i-tennis'])
  t.same(ids(ig.newRedFlags), ['i-knives'], 'the new interests with a red-flag bucket')
  t.same([ids(bySource('fb', MONTH_START(1).slice(0, 7)).new), ids(bySource('fb', MONTH_START(0).slice(0, 7)).lost)], [['i-jazz'], ['i-memes']])
  const seen = await app.database.query<{ source: string, seen_month: number }>(
    'select wp.source, wp.seen_month from watch_profiles wp join watches w on w.id = wp.watch_id where w.report_id = $1 order by wp.source', [watched])
  t.same(seen.map((r) => [r.source, Number(r.seen_month)]), [['fb', monthOf(MONTH_START(0))], ['ig', monthOf(MONTH_START(0))]], 'the seen months moved on')
})

// `npm run demo-data -- --next-month` dates a change in the month after the current one: the alert
// says that month, and a report generated after the import covers it too (the engine's reportMonth)
t.test('data dated a month ahead: a report generated after it shows that month, equal to the alert', async (t) => {
  const app = await build(t, { WORKERS: '1', INGEST_TOKEN: TOKEN, SIGNUP_FREE_REPORTS: '10' })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const profiles = [{ source: 'ig', username: 'jdoe' }]
  const watched = await readyReport(app, u.auth, profiles)
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${watched}/watch`, headers: u.auth })).statusCode, 201)
  const ahead = MONTH_START(-1)
  await ingest(app, [
    { type: 'interest', id: 'i-knives', name: 'Knives', categoryId: 'c-sport', redFlagId: 'rf-violence' },
    { type: 'account', id: 'a-5', source: 'ig', username: 'knifeclub', fullname: 'Knife Club', image: null, interests: ['i-knives'] },
    follow('p-1', 'a-5', ahead),
    follow('p-1', 'a-2', MONTH_START(3), ahead)
  ])
  const deadline = Date.now() + 60_000
  let alerts: Alert[] = []
  while (Date.now() < deadline && (alerts.length < 1 || await pending(app) > 0)) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    alerts = await alertsOf(app, u.auth)
  }
  t.same(alerts.map((a) => a.month), [ahead.slice(0, 7)], 'one alert, for the month ahead')
  const [alert] = alerts
  t.same([ids(alert.new), ids(alert.lost)], [['i-knives'], ['i-tennis']], 'its new and lost interests')

  const fresh = await readyReport(app, u.auth, profiles)
  const diffs = (await app.inject({ url: `/api/v1/report/${fresh}/diffs?source=ig&limit=100`, headers: u.auth })).json().items as Array<{ date: string, new: unknown, lost: unknown }>
  t.equal(diffs[0]?.date, alert.month, 'the report generated after the data ends at the alert\'s month')
  t.same({ new: diffs[0]?.new, lost: diffs[0]?.lost }, { new: alert.new, lost: alert.lost }, 'with the alert\'s new and lost')
})

const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1

t.test('raised once: the same data, a rewrite of old months and a deleted watch raise nothing', async (t) => {
  const app = await build(t, { WORKERS: '0', INGEST_TOKEN: TOKEN })
  await seedReportData(app.db)
  const raiser = alertRaiser(app.database, { alerts: { batchProfiles: 2 }, webhooks: { retryScheduleS: [0] }, log: { warn: () => {} } })
  const drain = async () => {
    let raised = 0
    for (let r = await raiser.runBatch(); r.claimed > 0; r = await raiser.runBatch()) raised += r.raised.length
    return raised
  }
  const u = await signedInUser(app)
  const userId = userIdOf(u.auth.authorization.slice('Bearer '.length))
  const reportId = await readyReportRow(app.database, userId)
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/watch`, headers: u.auth })).statusCode, 201)
  const gone = await readyReportRow(app.database, userId, [{ source: 'ig', profileId: 'p-2', username: 'alice' }])
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${gone}/watch`, headers: u.auth })).statusCode, 201)

  await ingest(app, [follow('p-2', 'a-1', MONTH_START(0))])
  t.equal(await pending(app), 1, 'the watched profile is marked by the import')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/report/${gone}/watch`, headers: u.auth })).statusCode, 204)
  t.equal(await drain(), 0, 'a watch deleted before the worker ran raises nothing')
  t.equal(await pending(app), 0)

  await ingest(app, [follow('p-3', 'a-2', MONTH_START(0))])
  t.equal(await pending(app), 0, 'an unwatched profile is not marked')

  await ingest(app, NEW_DATA)
  t.equal(await pending(app), 2)
  t.equal(await drain(), 3)
  t.equal((await alertsOf(app, u.auth)).length, 3)

  await ingest(app, NEW_DATA)
  t.equal(await pending(app), 0, 'the same data again changes no follow: nothing is marked')
  // a follow back-dated: the profile is marked, but its data month is the one seen
  await ingest(app, [follow('p-1', 'a-1', MONTH_START(6))])
  t.equal(await pending(app), 1)
  t.equal(await drain(), 0, 'a rewrite of months already seen raises nothing')
  t.equal(await pending(app), 0)

  // the seen months put back: the batch is computed again, and the unique key keeps the copies out
  await app.database.query('update watch_profiles set seen_month = seen_month - 1')
  await app.database.query("insert into alert_pending (profile_id) values ('p-1'), ('p-4')")
  t.equal(await drain(), 0, 'a batch run again raises no second alert')
  t.equal((await alertsOf(app, u.auth)).length, 3)
  t.same((await app.database.query<{ m: number }>('select min(seen_month)::int as m from watch_profiles'))[0].m, monthOf(MONTH_START(0)))
})

t.test('a profile changed again while its batch computes stays pending for the next batch', async (t) => {
  const app = await build(t, { WORKERS: '0', INGEST_TOKEN: TOKEN })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const userId = userIdOf(u.auth.authorization.slice('Bearer '.length))
  const reportId = await readyReportRow(app.database, userId, [{ source: 'ig', profileId: 'p-1', username: 'JDoe' }])
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/watch`, headers: u.auth })).statusCode, 201)
  const raiser = alertRaiser(app.database, { alerts: { batchProfiles: 10 }, webhooks: { retryScheduleS: [0] }, log: { warn: () => {} } })
  await ingest(app, [follow('p-1', 'a-4', MONTH_START(0))])
  const claimed = await raiser.claim()
  t.same(claimed, [{ profile_id: 'p-1', version: 1 }])
  // another import changes the profile after the claim
  await ingest(app, [follow('p-1', 'a-3', MONTH_START(4), MONTH_START(0))])
  const first = await raiser.raise(claimed)
  t.equal(first.raised.length, 1, 'the batch raised what it computed')
  t.same((await app.database.query<{ version: number }>('select version from alert_pending')).map((r) => r.version), [2], 'the row changed again stays')
  const second = await raiser.runBatch()
  t.same([second.claimed, second.raised.length], [1, 0], 'the next batch takes it; its month was raised already')
  t.equal(await pending(app), 0)
})
