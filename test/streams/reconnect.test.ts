// Two instances, A and B, on one database, and clients that reach them through a load balancer (the
// route in the EventSource's fetch). In the middle of a generation A shuts down: its streams end
// cleanly, the clients reconnect to B with Last-Event-ID and get the events they missed from the
// table, then the rest live: each event exactly once, in order. The generation is run here, as a
// worker would, with announcements that wait for the test, so that it advances one event
// at a time. Then a report whose generation fails: done with status failed and the error; and the
// same streams over HTTP/2 with TLS, as `npm start` serves them, through a shutdown.
import { once } from 'node:events'
import { connect as http2Connect, constants as h2, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2'
import type { AddressInfo } from 'node:net'
import t from '../tap.ts'
import { build, freshDatabase, signedInUser, testConfig } from '../helper.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { until } from '../peers/wait.ts'
import { createReportGenerator } from '../../src/services/reports/generation.ts'
import { loadTls } from '../../src/tls.ts'
import { closeApp, generationEvents, listen, openEventSource, parseEvents, rawStream, seen } from './client.ts'
import { gatedAnnouncements, sameDatabase } from './databases.ts'

const database = await freshDatabase(t)
await seedReportData(database.db)
const env = { SIGNUP_FREE_REPORTS: '10' }
const appA = await build(t, env, { database })
const appB = await build(t, env, { database: await sameDatabase(t, database) })
const baseA = await listen(appA)
const baseB = await listen(appB)
// a user of the service, signed in on A; B knows the session and the JWT from the shared database
const user = await signedInUser(appA)

t.test('A shuts down mid-generation: the clients resume on B with Last-Event-ID, every event once and in order', async (t) => {
  const id = await createReport(appA, user.auth)
  // announced as a worker would, on a transport that outlives A
  const gate = gatedAnnouncements(appB.events)
  const generator = createReportGenerator({ database, events: gate.events })

  // the load balancer: A until it goes away, then B; while `holding`, it holds new connections
  let backend = baseA
  let holding = false
  let admit!: () => void
  const admitted = new Promise<void>((resolve) => { admit = resolve })
  const held = () => holding ? admitted : undefined
  const route = (url: string) => url.replace(baseA, backend)
  const url = `${baseA}/api/v1/sse/${id}`
  const bearer = openEventSource(url, user.auth, { route, hold: held })
  const cookie = openEventSource(url, { cookie: user.cookie }, { route, hold: held })
  const clients = [['Bearer', bearer], ['cookie', cookie]] as const
  t.teardown(() => { bearer.close(); cookie.close() })
  const raw = await rawStream(url, user.auth)
  const waitAll = async (n: number, what: string) => {
    for (const [name, c] of clients) await c.waitFor((r) => r.length >= n, `${name}: ${what}`)
  }
  await waitAll(1, 'the draft state')

  const gen = await appA.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: user.auth })
  t.equal(gen.statusCode, 202)
  await waitAll(2, 'queued')
  const run = generator.run(id)
  await gate.release(`${id}:2`)
  await waitAll(3, 'collecting')
  await gate.release(`${id}:3`)
  await waitAll(4, 'interests')
  await gate.reached(`${id}:4`) // 4 is committed, not announced yet

  // A shuts down; the balancer sends the reconnects to B, holding them until 4 and 5 are written
  holding = true
  backend = baseB
  await appA.close()
  t.equal(appA.sseHub.subscriberCount(), 0, 'A ended every stream')
  await raw.waitForEnd()
  t.ok(raw.complete(), 'the stream ended cleanly (a whole response), not broken off')
  t.same(parseEvents(raw.text()).map((e) => e.id ?? ''), ['', '1', '2', '3'])
  for (const [name, c] of clients) {
    await until(() => c.errors.length > 0, { what: `${name}: the end of the stream` })
    t.equal(c.errors[0].readyState, c.es.CONNECTING, `${name}: the end makes EventSource reconnect`)
  }

  await gate.release(`${id}:4`) // nobody on B listens to this report yet
  await gate.reached(`${id}:5`)
  admit()
  // missed: 4 and 5, from the table
  await waitAll(6, 'the missed events')
  for (const [name, c] of clients) {
    t.equal(c.requests.length, 2, `${name}: one reconnect`)
    t.ok(c.requests[1].url.startsWith(baseB), `${name}: to B`)
    t.equal(c.requests[1].headers['Last-Event-ID'], '3', `${name}: with the last id it had`)
    t.same(c.received.map((e) => e.id), ['', '1', '2', '3', '4', '5'], `${name}: 4 and 5 replayed`)
  }
  t.equal(appB.sseHub.subscriberCount(), 2)

  // the rest, live on B: 5's own announcement (already delivered: not again), then 6 and 7, which
  // the worker has written but not announced yet
  await gate.release(`${id}:5`)
  await gate.reached(`${id}:6`)
  for (const [name, c] of clients) t.equal(c.received.length, 6, `${name}: 6 is not there before its announcement`)
  await gate.release(`${id}:6`)
  await waitAll(7, 'ready')
  await gate.release(`${id}:7`)
  await run

  const expected = [{ id: '', event: 'status', data: { reportId: id, status: 'draft', progress: 0, stage: null } }, ...generationEvents(id)]
  for (const [name, c] of clients) {
    t.equal((await c.waitForFailure(`${name}: 204 after done`)).code, 204, `${name}: done, the end, then 204 on B`)
    t.same(seen(c), expected, `${name}: every event exactly once, in order`)
    t.equal(c.requests[2].headers['Last-Event-ID'], '7')
  }
  await until(() => appB.sseHub.subscriberCount() === 0, { what: 'B\'s subscribers to leave' })
  t.equal(appB.sseHub.reportCount(), 0)
})

t.test('a generation that fails: status failed at the stage it reached, then done with the error', async (t) => {
  const id = await createReport(appB, user.auth)
  const base = `${baseB}/api/v1/sse/${id}`
  const cookie = openEventSource(base, { cookie: user.cookie })
  t.teardown(cookie.close)
  await cookie.waitFor((r) => r.length === 1, 'the draft state')
  t.equal((await appB.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: user.auth })).statusCode, 202)
  await cookie.waitFor((r) => r.length === 2, 'queued')
  // every attempt failed: what the dead-letter worker does
  await createReportGenerator({ database, events: appB.events }).fail(id)
  t.equal((await cookie.waitForFailure('204 after done')).code, 204)
  t.same(seen(cookie).slice(1), [
    { id: '1', event: 'status', data: { reportId: id, status: 'queued', progress: 0, stage: 'queued' } },
    { id: '2', event: 'status', data: { reportId: id, status: 'failed', progress: 0, stage: 'queued' } },
    { id: '3', event: 'done', data: { reportId: id, status: 'failed', error: 'report generation failed' } }
  ])
})

await t.test('HTTP/2 over TLS: the same stream; a cancelled one leaves; shutdown ends the others and sends GOAWAY', async (t) => {
  const tls = await loadTls({ certFile: '', keyFile: '', dataDir: testConfig(t).dataDir })
  const app = await build(t, env, {
    database: await sameDatabase(t, database),
    fastify: { http2: true, https: { allowHTTP1: true, key: tls.key, cert: tls.cert } }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const session = http2Connect(`https://127.0.0.1:${(app.server.address() as AddressInfo).port}`, { rejectUnauthorized: false })
  t.teardown(() => session.destroy())
  session.on('error', () => {})
  const goaway: number[] = []
  session.on('goaway', (code: number) => { goaway.push(code) })
  const id = await createReport(app, user.auth)

  const open = async (headers: Record<string, string>) => {
    const req: ClientHttp2Stream = session.request({ ':path': `/api/v1/sse/${id}`, accept: 'text/event-stream', ...headers })
    req.on('error', () => {})
    let text = ''
    let ended = false
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => { text += chunk })
    req.on('end', () => { ended = true })
    const [head] = await once(req, 'response') as [IncomingHttpHeaders]
    return { req, head, text: () => text, ended: () => ended }
  }
  const streams = [await open(user.auth), await open({ cookie: user.cookie })]
  const head = `retry: 3000\n\nevent: status\ndata: ${JSON.stringify({ reportId: id, status: 'draft', progress: 0, stage: null })}\n\n`
  for (const s of streams) {
    t.equal(s.head[':status'], 200)
    t.equal(s.head['content-type'], 'text/event-stream')
    t.equal(s.head['x-accel-buffering'], 'no')
    t.notOk(s.head.connection, 'no Connection header: HTTP/2 forbids it')
    await until(() => s.text() === head, { what: 'retry and the current state' })
  }

  // a client that cancels its stream (RST_STREAM) leaves the hub
  const cancelled = await open(user.auth)
  await until(() => app.sseHub.subscriberCount() === 3, { what: 'three subscribers' })
  cancelled.req.close(h2.NGHTTP2_CANCEL)
  await until(() => app.sseHub.subscriberCount() === 2, { what: 'the cancelled stream to leave' })

  // shutdown: the streams end (END_STREAM, not a reset), and the session is told to go away, so
  // that the client's reconnect opens a connection to another instance rather than asking this one
  await app.close()
  for (const s of streams) {
    await until(() => s.ended(), { what: 'the stream to end' })
    t.equal(s.req.rstCode, h2.NGHTTP2_NO_ERROR, 'ended cleanly')
  }
  t.same(goaway, [h2.NGHTTP2_NO_ERROR], 'GOAWAY: reconnect elsewhere')
  t.equal(app.sseHub.subscriberCount(), 0)
})

// Every test above has run (tap runs them in order): close the listening app now, rather than in
// the root-level teardown, which tap runs only once it finds the process idle.
await closeApp(appB)
