// GET /sse/{reportId} through the real `eventsource` client, Bearer (through its fetch
// option) and cookie only, and through a raw reader for the bytes EventSource hides: refusals as
// GeneralError answers before any stream byte, the stream's headers and `retry:`, the current state on
// connect, status events with ids, `done` then the end, Last-Event-ID replay, 204 for a finished
// report the client has seen to the end, and `: ping` heartbeats. One app (with a worker, and a
// heartbeat every second) serves the whole file.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport, waitForStatus } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { until } from '../peers/wait.ts'
import { closeApp, generationEvents, listen, openEventSource, parseEvents, rawStream, seen } from './client.ts'

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

const app = await build(t, { WORKERS: '1', SSE_HEARTBEAT_S: '1', SIGNUP_FREE_REPORTS: '10' })
await seedReportData(app.db)
const base = await listen(app)
const owner = await signedInUser(app)
const sseUrl = (id: string) => `${base}/api/v1/sse/${id}`
const draftState = (id: string) => ({ reportId: id, status: 'draft', progress: 0, stage: null })

t.test('refusals: 401, 403, 404 as GeneralError answers before any stream byte', async (t) => {
  const other = await signedInUser(app)
  const gone = await signedInUser(app)
  const signout = await app.inject({ method: 'POST', url: '/api/v1/auth/signout', headers: { ...gone.auth, cookie: gone.cookie } })
  t.equal(signout.statusCode, 200)
  const id = await createReport(app, owner.auth)

  const cases: Array<[string, string, Record<string, string>, number, string]> = [
    ['no credentials', id, {}, 401, 'access denied'],
    ['a bad token', id, { authorization: 'Bearer not.a.jwt' }, 401, 'access denied'],
    ['a forged cookie', id, { cookie: 'sid=forged.value' }, 401, 'access denied'],
    ['a signed-out session\'s JWT', id, gone.auth, 401, 'access denied'],
    ['a signed-out session\'s cookie', id, { cookie: gone.cookie }, 401, 'access denied'],
    ['another user\'s report (Bearer)', id, other.auth, 403, 'access denied'],
    ['another user\'s report (cookie)', id, { cookie: other.cookie }, 403, 'access denied'],
    ['an unknown report (Bearer)', UNKNOWN, owner.auth, 404, 'report not found'],
    ['an unknown report (cookie)', UNKNOWN, { cookie: owner.cookie }, 404, 'report not found'],
    ['not a report id', 'nope', owner.auth, 404, 'report not found']
  ]
  for (const [what, reportId, headers, code, message] of cases) {
    // the exact answer
    const res = await app.inject({ url: `/api/v1/sse/${reportId}`, headers: { accept: 'text/event-stream', ...headers } })
    t.equal(res.statusCode, code, what)
    t.match(res.headers['content-type'], /^application\/json/, `${what}: JSON, not a stream`)
    t.has(res.json(), { code, message }, `${what}: GeneralError`)
    t.match(res.json().reason, /^[a-z_]+$/, `${what}: a reason`)
    // the real client fails with that status and gives up: no event, no reconnect
    const client = openEventSource(sseUrl(reportId), headers)
    const failure = await client.waitForFailure(what)
    t.equal(failure.code, code, `${what}: EventSource sees ${code}`)
    t.equal(client.es.readyState, client.es.CLOSED, `${what}: EventSource stops`)
    t.same(client.received, [], `${what}: no event`)
    t.equal(client.opens(), 0, `${what}: never open`)
    client.close()
  }
  t.equal(app.sseHub.subscriberCount(), 0, 'no refused request left a subscriber behind')
})

t.test('a live generation: retry, the current state, status events with ids, done, the end, then 204', async (t) => {
  const id = await createReport(app, owner.auth)

  // the bytes, over Bearer
  const raw = await rawStream(sseUrl(id), owner.auth)
  t.teardown(raw.abort)
  t.equal(raw.status, 200)
  t.equal(raw.headers['content-type'], 'text/event-stream')
  t.equal(raw.headers['cache-control'], 'no-cache')
  t.equal(raw.headers['x-accel-buffering'], 'no')
  t.equal(raw.headers['x-content-type-options'], 'nosniff', 'helmet\'s headers are there although the reply was hijacked')
  t.equal(raw.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", 'the API security set')
  t.equal(raw.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP (RFC 6797 7.2)')
  t.ok(raw.headers['ratelimit-limit'], 'the rate-limit headers are copied onto the hijacked response')
  const head = `retry: 3000\n\nevent: status\ndata: ${JSON.stringify(draftState(id))}\n\n`
  await raw.waitForText((x) => x.length >= head.length, 'the first lines')
  t.equal(raw.text().slice(0, head.length), head, 'retry first, then the draft\'s state as a status event without an id (it has no seq)')

  // the real client, Bearer through its fetch option and cookie only
  const bearer = openEventSource(sseUrl(id), owner.auth)
  const cookie = openEventSource(sseUrl(id), { cookie: owner.cookie })
  t.teardown(bearer.close)
  t.teardown(cookie.close)
  for (const c of [bearer, cookie]) await c.waitFor((r) => r.length === 1, 'the current state')
  t.notOk(cookie.requests[0].headers.authorization, 'no Bearer: the cookie alone authenticates')
  t.notOk(raw.ended(), 'a draft\'s stream stays open, waiting for events')
  t.equal(app.sseHub.subscriberCount(), 3)
  t.equal(app.sseHub.reportCount(), 1, 'one entry for the report, whatever its number of streams')

  const gen = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: owner.auth })
  t.equal(gen.statusCode, 202)

  const expected = [{ id: '', event: 'status', data: draftState(id) }, ...generationEvents(id)]
  await raw.waitForEnd()
  t.ok(raw.complete(), 'after done the server ends the stream (a whole response, not a broken one)')
  t.same(parseEvents(raw.text()).map((e) => ({ id: e.id ?? '', event: e.event, data: e.data })), expected, 'every event once, in order')
  t.equal(parseEvents(raw.text()).at(-1)?.event, 'done', 'done is the last thing on the stream')

  for (const [name, c] of [['Bearer', bearer], ['cookie', cookie]] as const) {
    await c.waitFor((r) => r.some((e) => e.type === 'done'), `${name}: done`)
    t.same(seen(c), expected, `${name}: every event once, in order`)
    // the stream ended, so EventSource reconnects with the last id: 204, and it stops for good
    const failure = await c.waitForFailure(`${name}: the 204 on reconnect`)
    t.equal(failure.code, 204, `${name}: 204 once the client has the last event`)
    t.equal(c.es.readyState, c.es.CLOSED, `${name}: a 204 stops the EventSource`)
    t.equal(c.requests.length, 2, `${name}: one reconnect`)
    t.equal(c.requests[1].headers['Last-Event-ID'], '7', `${name}: the reconnect carried the last id`)
    t.equal(c.received.length, expected.length, `${name}: nothing twice`)
  }
  await until(() => app.sseHub.subscriberCount() === 0, { what: 'every subscriber to leave' })
  t.equal(app.sseHub.reportCount(), 0)
})

t.test('a finished report: its state then done and the end; Last-Event-ID replays; 204 once seen', async (t) => {
  const id = await createReport(app, owner.auth)
  await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: owner.auth })
  await waitForStatus(app, owner.auth, id, ['ready', 'failed'])
  const all = generationEvents(id)
  const url = sseUrl(id)

  // no Last-Event-ID: the latest status, then done, then the server ends the stream
  const fresh = await rawStream(url, owner.auth)
  await fresh.waitForEnd()
  t.ok(fresh.complete())
  t.ok(fresh.text().startsWith('retry: 3000\n\n'))
  t.same(parseEvents(fresh.text()), all.slice(5), 'the current state (status 6) and done (7)')

  // Last-Event-ID in the middle: every event after it, in order
  const replay = await rawStream(url, { ...owner.auth, 'last-event-id': '3' })
  await replay.waitForEnd()
  t.same(parseEvents(replay.text()), all.slice(3))
  // the same through the query parameter, for clients that cannot set headers
  const byQuery = await rawStream(`${url}?lastEventId=5`, owner.auth)
  await byQuery.waitForEnd()
  t.same(parseEvents(byQuery.text()), all.slice(5))

  // the client has the last event: 204, empty
  const done = await app.inject({ url: `/api/v1/sse/${id}`, headers: { ...owner.auth, 'last-event-id': '7' } })
  t.equal(done.statusCode, 204)
  t.equal(done.body, '')
  t.equal((await app.inject({ url: `/api/v1/sse/${id}?lastEventId=7`, headers: owner.auth })).statusCode, 204)
  t.equal((await app.inject({ url: `/api/v1/sse/${id}`, headers: { cookie: owner.cookie, 'last-event-id': '7' } })).statusCode, 204)

  // an id the report never had, or not a seq at all: the current state again rather than silence
  for (const lastId of ['99', 'abc']) {
    const s = await rawStream(url, { ...owner.auth, 'last-event-id': lastId })
    await s.waitForEnd()
    t.same(parseEvents(s.text()), all.slice(5), `Last-Event-ID ${lastId}`)
  }

  // the real client, cookie only, arriving after the end: the state, done, then 204 and it stops
  const late = openEventSource(url, { cookie: owner.cookie })
  t.teardown(late.close)
  t.equal((await late.waitForFailure('the 204 on reconnect')).code, 204)
  t.same(seen(late), all.slice(5))
  t.equal(late.es.readyState, late.es.CLOSED)

  // the real client, Bearer, resuming from 3 (its first request names the id in the query; the
  // reconnect's Last-Event-ID header wins over it)
  const resumed = openEventSource(`${url}?lastEventId=3`, owner.auth)
  t.teardown(resumed.close)
  t.equal((await resumed.waitForFailure('the 204 on reconnect')).code, 204)
  t.same(seen(resumed), all.slice(3), 'events 4 to 7, once each')
  t.equal(resumed.requests[1].headers['Last-Event-ID'], '7')
  await until(() => app.sseHub.subscriberCount() === 0, { what: 'no subscriber left' })
})

await t.test('heartbeats: a `: ping` comment every SSE_HEARTBEAT_S seconds, invisible to EventSource', async (t) => {
  const id = await createReport(app, owner.auth)
  const bearer = openEventSource(sseUrl(id), owner.auth)
  const cookie = openEventSource(sseUrl(id), { cookie: owner.cookie })
  t.teardown(bearer.close)
  t.teardown(cookie.close)
  for (const c of [bearer, cookie]) await c.waitFor((r) => r.length === 1, 'the current state')

  const s = await rawStream(sseUrl(id), owner.auth)
  t.teardown(s.abort)
  const text = await s.waitForText((x) => x.split(': ping\n\n').length - 1 >= 2, 'two pings')
  t.match(text, /^retry: 3000\n\nevent: status\ndata: .*\n\n(: ping\n\n)+$/, 'pings are comment lines between events')
  // the EventSource streams, older than the raw one, have had those pings too
  for (const c of [bearer, cookie]) {
    t.same(seen(c), [{ id: '', event: 'status', data: draftState(id) }], 'a ping is a comment: the client sees no event')
    t.same(c.errors, [], 'and no error')
    t.equal(c.es.readyState, c.es.OPEN)
  }
})

// Every test above has run (tap runs them in order): close the listening app now, rather than in
// the root-level teardown, which tap runs only once it finds the process idle.
await closeApp(app)
