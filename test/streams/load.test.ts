// Many streams on one instance: 1,000 opened and dropped leave no subscriber, socket, timer or
// listener behind; and the fan-out reads each event once per instance, whatever the number of
// subscribers: one LISTEN connection, an announcement after each event's commit, at most one read of
// report_events per event (counted on every statement the app sends to the database).
import { request as httpRequest } from 'node:http'
import t from '../tap.ts'
import { build, freshDatabase, onPostgres, signedInUser } from '../helper.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { until } from '../peers/wait.ts'
import { REPORT_EVENTS_CHANNEL } from '../../src/services/reports/events.ts'
import { closeApp, generationEvents, listen, openEventSource, rawStream, type RawStream } from './client.ts'
import { listenConnections, observedDatabase } from './databases.ts'

const database = await freshDatabase(t)
await seedReportData(database.db)
// every read of report_events the app makes (its inserts carry a sub-select: those start with insert)
let eventReads = 0
const observed = observedDatabase(database, (sql) => {
  if (/^\s*select\b[\s\S]*\bfrom\s+"?report_events"?/i.test(sql)) eventReads++
})
// one user holds every stream here: the per-user limit (SSE_MAX_STREAMS_PER_USER) is lifted
const app = await build(t, { WORKERS: '1', SIGNUP_FREE_REPORTS: '10', SSE_MAX_STREAMS_PER_USER: '100000' }, { database: observed })
const base = await listen(app)
const user = await signedInUser(app)

/** what could leak per stream: open sockets, timers, listeners on the long-lived emitters */
function resources () {
  const active = process.getActiveResourcesInfo()
  const listeners = (e: NodeJS.EventEmitter) => Object.fromEntries(e.eventNames().map((n) => [String(n), e.listenerCount(n)]))
  return {
    timers: active.filter((r) => r === 'Timeout').length,
    sockets: active.filter((r) => r === 'TCPSocketWrap').length,
    server: listeners(app.server),
    process: listeners(process)
  }
}

const connections = () => new Promise<number>((resolve, reject) => {
  app.server.getConnections((err, n) => { if (err) reject(err); else resolve(n) })
})

t.test('1,000 streams opened and dropped: the subscriber count returns to zero, nothing left behind', async (t) => {
  const id = await createReport(app, user.auth)
  const url = `${base}/api/v1/sse/${id}`
  const warnings: Error[] = []
  const onWarning = (w: Error) => { warnings.push(w) }
  process.on('warning', onWarning)
  t.teardown(() => { process.off('warning', onWarning) })
  // The database pool grows under load, each new connection with its socket and timers: open it to
  // its full size first, so that only what the streams leave behind can move the counts.
  if (onPostgres) await Promise.all(Array.from({ length: 30 }, () => database.query('select pg_sleep(0.1)')))
  const before = resources()

  // 1,000 streams, by Bearer and by cookie, all open at once (opened 100 at a time, within the
  // listen backlog); with each hundred, 10 clients that give up before their answer, while their
  // stream is being prepared
  const streams: RawStream[] = []
  for (let batch = 0; batch < 10; batch++) {
    const quitters = Array.from({ length: 10 }, (_, i) => {
      const req = httpRequest(url, { headers: i % 2 ? user.auth : { cookie: user.cookie }, agent: false })
      req.on('error', () => {})
      req.end()
      return req
    })
    setImmediate(() => { for (const q of quitters) q.destroy() })
    streams.push(...await Promise.all(Array.from({ length: 100 }, (_, i) =>
      rawStream(url, i % 2 ? user.auth : { cookie: user.cookie }))))
  }
  t.ok(streams.every((s) => s.status === 200), 'every stream open')
  for (const s of streams) await s.waitForText((x) => x.includes('event: status'), 'the current state')
  await until(() => app.sseHub.subscriberCount() === 1000, { what: 'the quitters to be gone and 1,000 subscribers' })
  t.equal(app.sseHub.subscriberCount(), 1000, 'all 1,000 subscribed at once')
  t.equal(app.sseHub.reportCount(), 1)
  const during = resources()
  t.ok(during.timers < before.timers + 10, `no timer per stream (${before.timers} -> ${during.timers} with 1,000 open)`)

  for (const s of streams) s.abort()
  await until(() => app.sseHub.subscriberCount() === 0, { timeoutMs: 30_000, what: 'the subscriber count to return to zero' })
  t.equal(app.sseHub.reportCount(), 0, 'the report\'s entry is gone with its last stream')
  await until(async () => await connections() === 0, { timeoutMs: 30_000, what: 'the server\'s connections to close' })
  await until(() => resources().sockets <= before.sockets, { timeoutMs: 30_000, what: 'the sockets to close' })
  // a timer the burst started that ends by itself (a connection's idle timeout, on a busy machine
  // still pending here) is not a leak: the count may take a moment to settle; a timer per stream would not
  await until(() => resources().timers <= before.timers + 2, { timeoutMs: 30_000, what: 'the timers to settle' }).catch(() => {})
  const after = resources()
  t.ok(after.timers <= before.timers + 2, `no timer left (${before.timers} -> ${after.timers})`)
  t.same(after.server, before.server, 'no listener left on the server')
  t.same(after.process, before.process, 'none on the process')
  t.same(warnings.map((w) => w.message), [], 'no MaxListenersExceededWarning or other warning')

  // the instance still serves streams afterwards
  const again = await rawStream(url, user.auth)
  await again.waitForText((x) => x.includes('event: status'), 'a stream after the storm')
  again.abort()
  await until(() => app.sseHub.subscriberCount() === 0, { what: 'that one to leave too' })
})

await t.test('fan-out: one LISTEN, a NOTIFY after each commit, one read per event for 200 subscribers', async (t) => {
  const id = await createReport(app, user.auth)
  const url = `${base}/api/v1/sse/${id}`
  const subscribers = Array.from({ length: 200 }, (_, i) =>
    openEventSource(url, i % 2 ? user.auth : { cookie: user.cookie }, { closeOnDone: true }))
  t.teardown(() => { for (const s of subscribers) s.close() })
  for (const s of subscribers) await s.waitFor((r) => r.length === 1, 'the current state')
  t.equal(app.sseHub.subscriberCount(), 200)

  if (onPostgres) {
    t.equal(await listenConnections(database), 1, 'one LISTEN connection for the instance, with 200 streams open')
  } else {
    t.comment('PGlite is one embedded connection: its LISTEN is that connection\'s')
  }

  // the test listens too, on the app's transport (NOTIFY, or the report's broker channel): each
  // announcement must come after its event is committed, in order
  const announced: Array<{ payload: string, committed: Promise<boolean> }> = []
  await app.events.on(REPORT_EVENTS_CHANNEL, (payload) => {
    const [reportId, seq] = payload.split(':')
    if (reportId !== id) return
    const committed = database.query('select 1 from report_events where report_id = $1 and seq = $2', [reportId, Number(seq)])
      .then((rows) => rows.length === 1, () => false)
    announced.push({ payload, committed })
  })

  const readsBefore = eventReads
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: user.auth })).statusCode, 202)
  for (const s of subscribers) await s.waitFor((r) => r.some((e) => e.type === 'done'), 'done', 60_000)
  const reads = eventReads - readsBefore

  const expected = generationEvents(id).map((e) => e.id)
  t.ok(subscribers.every((s) => s.received.map((e) => e.id).join() === ['', ...expected].join()),
    'all 200 subscribers got every event once, in order')
  await until(() => announced.length === expected.length, { what: 'every announcement' })
  const checked = await Promise.all(announced.map(async (a) => ({ payload: a.payload, committed: await a.committed })))
  t.same(checked, expected.map((seq) => ({ payload: `${id}:${seq}`, committed: true })),
    'one announcement per event, in order, each after its event was committed')
  t.ok(reads <= expected.length, `${reads} reads of report_events for ${expected.length} events and 200 subscribers`)
  t.ok(reads > 0, 'the events did come from the table')
})

// Every test above has run (tap runs them in order): close the listening app now, rather than in
// the root-level teardown, which tap runs only once it finds the process idle.
await closeApp(app)
