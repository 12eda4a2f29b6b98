// The events broker's connection cut mid-stream (EVENTS_URL=redis://…): instance B reaches Redis
// through a proxy this test owns; A and the generation publish to Redis directly. With a report
// stream and an alert stream open on B, the proxy is cut; while it is, the report's generation runs
// to its end and alerts are raised, each published to the broker, which B, cut off, does not hear.
// When the proxy is back, B subscribes again and catches up from the database: every event reaches
// its stream, once and in order. Nothing is lost to the broker
// (docs/decisions/reports-and-streams.md, Events through a broker). The machine's Redis is never
// touched. And an instance subscribes to a channel only while a stream of it is open there.
import { Redis } from 'ioredis'
import t from '../tap.ts'
import { build, freshDatabase, onPostgres, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { redisProxy, REDIS_PORT } from '../peers/redis-proxy.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { change, raise, userIdByEmail, watchedReport } from '../watches/support.ts'
import { closeApp, generationEvents, listen, openEventSource, seen } from '../streams/client.ts'
import { sameDatabase } from '../streams/databases.ts'
import { createReportGenerator } from '../../src/services/reports/generation.ts'

const probe = new Redis(REDIS_PORT, '127.0.0.1', { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null })
probe.on('error', () => {})
const redisUp = await probe.connect().then(() => true, () => false)
probe.disconnect()

const skip = !onPostgres
  ? 'two instances with connections of their own: runs in the PostgreSQL run (TEST_DATABASE_URL set)'
  : redisUp ? false : `no Redis at 127.0.0.1:${REDIS_PORT}`

t.test('the broker connection cut mid-stream: what was published meanwhile reaches the streams after the reconnect', { skip }, async (t) => {
  const proxy = await redisProxy(t)
  const database = await freshDatabase(t)
  await seedReportData(database.db)
  const env = { SIGNUP_FREE_REPORTS: '10' }
  const a = await build(t, { ...env, EVENTS_URL: `redis://127.0.0.1:${REDIS_PORT}` }, { database })
  const b = await build(t, { ...env, EVENTS_URL: proxy.url, METRICS_PORT: '0' }, { database: await sameDatabase(t, database) })
  const baseB = await listen(b)
  t.teardown(() => closeApp(b))
  await until(() => a.events.state().connected && b.events.state().connected, { what: 'both instances connected to the broker' })

  const user = await signedInUser(a)
  const watched = await watchedReport(a, await userIdByEmail(a, user.email))
  const id = await createReport(a, user.auth)
  const report = openEventSource(`${baseB}/api/v1/sse/${id}`, user.auth, { closeOnDone: true })
  const alerts = openEventSource(`${baseB}/api/v1/sse/alerts`, user.auth)
  t.teardown(() => { report.close(); alerts.close() })
  await report.waitFor((r) => r.length === 1, 'the draft state')
  await until(() => alerts.opens() === 1, { what: 'the alert stream open on B' })

  // live through the broker: queued (announced by A), an alert (raised through A)
  t.equal((await a.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: user.auth })).statusCode, 202)
  await report.waitFor((r) => r.length === 2, 'queued, live')
  const first = await raise(a, [change(watched, '2026-01')])
  await alerts.waitFor((r) => r.length === 1, 'the first alert, live')

  await proxy.cut()
  await until(() => b.events.state().connected === false, { what: 'B to see its broker connection lost' })
  const reconnectsBefore = b.events.state().reconnects
  t.match(await b.metrics!.scrape(), /^pir_events_broker_connected\{transport="redis"\} 0$/m, 'the metrics show the broker connection down')
  // the rest of the generation and two alerts, each committed and published while B is cut off
  await createReportGenerator({ database, events: a.events }).run(id)
  const meanwhile = await raise(a, [change(watched, '2026-02'), change(watched, '2026-03')])
  t.equal(report.received.length, 2, 'B\'s report stream has heard nothing of them yet')
  t.equal(alerts.received.length, 1, 'nor its alert stream')

  await proxy.restore()
  await report.waitFor((r) => r.some((e) => e.type === 'done'), 'the events published while cut, after the reconnect')
  await alerts.waitFor((r) => r.length === 3, 'the alerts raised while cut, after the reconnect')
  t.ok(b.events.state().reconnects > reconnectsBefore, 'B reconnected to the broker')
  const scrape = await b.metrics!.scrape()
  t.match(scrape, /^pir_events_broker_connected\{transport="redis"\} 1$/m, 'and up again')
  t.match(scrape, /^pir_events_reconnects_total\{transport="redis"\} [1-9]\d*$/m, 'and the reconnect counted')
  t.same(seen(report), [{ id: '', event: 'status', data: { reportId: id, status: 'draft', progress: 0, stage: null } }, ...generationEvents(id)],
    'every event of the report once, in order')
  t.same(alerts.received.map((r) => r.id), [...first, ...meanwhile].map((r) => String(r.seq)), 'every alert once, in order')
})

t.test('with the broker, an instance subscribes to a report\'s and a user\'s channel while a stream of them is open there, and leaves them after the last', { skip }, async (t) => {
  const redis = new Redis(REDIS_PORT, '127.0.0.1')
  t.teardown(() => redis.disconnect())
  const database = await freshDatabase(t)
  await seedReportData(database.db)
  const a = await build(t, { EVENTS_URL: `redis://127.0.0.1:${REDIS_PORT}` }, { database })
  const b = await build(t, { EVENTS_URL: `redis://127.0.0.1:${REDIS_PORT}` }, { database: await sameDatabase(t, database) })
  const baseB = await listen(b)
  t.teardown(() => closeApp(b))
  const user = await signedInUser(a)
  const userId = await userIdByEmail(a, user.email)
  const id = await createReport(a, user.auth)
  const reportChannel = `pir-events:report_events:${id}`
  const alertChannel = `pir-events:alerts:${userId}`
  /** the connections subscribed to each channel, every instance's (only B holds streams) */
  const subscribers = async () => {
    const [, reports, , alerts] = await redis.pubsub('NUMSUB', reportChannel, alertChannel) as [string, number, string, number]
    return { reports, alerts }
  }
  t.same(await subscribers(), { reports: 0, alerts: 0 }, 'no stream open: no subscription anywhere')
  const streams = [
    openEventSource(`${baseB}/api/v1/sse/${id}`, user.auth),
    openEventSource(`${baseB}/api/v1/sse/${id}`, { cookie: user.cookie }),
    openEventSource(`${baseB}/api/v1/sse/alerts`, user.auth)
  ]
  t.teardown(() => { for (const s of streams) s.close() })
  await until(async () => streams.every((s) => s.opens() === 1) && b.sseHub.subscriberCount() === 2, { what: 'the streams open on B' })
  t.same(await subscribers(), { reports: 1, alerts: 1 }, 'one subscription of B per channel, however many streams')
  streams[0].close()
  await until(() => b.sseHub.subscriberCount() === 1, { what: 'one report stream to leave' })
  t.same(await subscribers(), { reports: 1, alerts: 1 }, 'kept while a stream of the report is open')
  streams[1].close()
  streams[2].close()
  await until(async () => { const s = await subscribers(); return s.reports === 0 && s.alerts === 0 }, { what: 'B to leave both channels' })
  t.pass('left after the last stream of each')
})
