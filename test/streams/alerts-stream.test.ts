// GET /sse/alerts, the user's alert stream, through the real `eventsource` client and a raw reader:
// 401 without credentials, API keys with scope 'alerts' only, `retry: 3000` first and `: ping`
// heartbeats, alerts raised with recordAlerts arriving as `alert` events (`id: <seq>`, the Alert JSON)
// in order, nothing of another user's, Last-Event-ID replaying exactly the alerts after it, the end of
// the stream with its session, and one SSE_MAX_STREAMS_PER_USER for report and alert streams together.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { issueKey } from '../api-keys/support.ts'
import { change, raise, userIdByEmail, watchedReport } from '../watches/support.ts'
import { closeApp, listen, openEventSource, parseEvents, rawStream, type RawStream } from './client.ts'

const app = await build(t, { SSE_HEARTBEAT_S: '1', SSE_MAX_STREAMS_PER_USER: '3' })
const base = await listen(app)
const ALERTS_URL = `${base}/api/v1/sse/alerts`

async function watcher () {
  const user = await signedInUser(app)
  const userId = await userIdByEmail(app, user.email)
  return { ...user, userId, watched: await watchedReport(app, userId) }
}

/** the events of a raw stream once it holds n of them */
async function eventsOf (s: RawStream, n: number, what: string) {
  await s.waitForText((text) => parseEvents(text).length >= n, what)
  return parseEvents(s.text())
}

t.test('refusals before any stream byte: 401 without credentials, 403 for an API key without scope alerts', async (t) => {
  const user = await watcher()
  const none = await app.inject({ url: '/api/v1/sse/alerts', headers: { accept: 'text/event-stream' } })
  t.equal(none.statusCode, 401)
  t.has(none.json(), { code: 401, message: 'access denied' }, 'GeneralError, not a report lookup of "alerts"')
  const reportsKey = await issueKey(app, user.auth, { scopes: ['reports:read'] })
  const refused = await app.inject({ url: '/api/v1/sse/alerts', headers: { accept: 'text/event-stream', ...reportsKey.auth } })
  t.equal(refused.statusCode, 403)
  t.has(refused.json(), { code: 403, message: 'access denied' })

  const alertsKey = await issueKey(app, user.auth, { scopes: ['alerts'] })
  const s = await rawStream(ALERTS_URL, alertsKey.auth)
  t.teardown(() => s.abort())
  t.equal(s.status, 200, 'an API key with scope alerts streams')
  const [alert] = await raise(app, [change(user.watched, '2026-01')])
  const [event] = await eventsOf(s, 1, 'the alert on the key\'s stream')
  t.same(event, { id: String(alert.seq), event: 'alert', data: alert.alert })
})

t.test('the framing: retry first, text/event-stream, `: ping` heartbeats, each alert as `id: <seq>` `event: alert`', async (t) => {
  const user = await watcher()
  const s = await rawStream(ALERTS_URL, { cookie: user.cookie })
  t.teardown(() => s.abort())
  t.equal(s.status, 200)
  t.match(s.headers['content-type'], /^text\/event-stream/)
  t.equal(s.headers['cache-control'], 'no-cache')
  await s.waitForText((text) => text.includes(': ping\n\n'), 'a heartbeat')
  t.ok(s.text().startsWith('retry: 3000\n\n'), 'retry: 3000 first')
  t.same(parseEvents(s.text()), [], 'no alert before one is raised: a new stream starts with the next')

  const raised = await raise(app, [change(user.watched, '2026-01', 1), change(user.watched, '2026-02')])
  await s.waitForText((text) => parseEvents(text).length === 2, 'both alerts')
  const alert = raised[0]
  t.match(s.text(), `id: ${alert.seq}\nevent: alert\ndata: ${JSON.stringify(alert.alert)}\n\n`, 'the exact wire form')
})

t.test('alerts arrive in order on every stream of their user, and on no other user\'s', async (t) => {
  const a = await watcher()
  const b = await watcher()
  const aBearer = openEventSource(ALERTS_URL, a.auth)
  const aCookie = openEventSource(ALERTS_URL, { cookie: a.cookie })
  const bStream = openEventSource(ALERTS_URL, b.auth)
  t.teardown(() => { aBearer.close(); aCookie.close(); bStream.close() })
  await until(() => aBearer.opens() + aCookie.opens() + bStream.opens() === 3, { what: 'three open streams' })

  const first = await raise(app, [change(a.watched, '2026-01'), change(a.watched, '2026-02', 2)])
  const second = await raise(app, [change(a.watched, '2026-03')])
  const expected = [...first, ...second].map((r) => ({ type: 'alert', id: String(r.seq), data: r.alert }))
  t.same(expected.map((e) => e.id), ['1', '2', '3'], 'a user\'s alerts numbered from 1')
  for (const c of [aBearer, aCookie]) {
    await c.waitFor((r) => r.length >= 3, 'three alerts')
    t.same(c.received, expected, 'every alert once, in seq order, with the Alert JSON')
  }

  // b's stream is live: b's own alert arrives, and nothing of a's came before it
  const theirs = await raise(app, [change(b.watched, '2026-01')])
  await bStream.waitFor((r) => r.length >= 1, 'b\'s alert')
  t.same(bStream.received, [{ type: 'alert', id: String(theirs[0].seq), data: theirs[0].alert }], 'only b\'s own alert')
  t.equal(aBearer.received.length, 3, 'a gets none of b\'s')
})

t.test('Last-Event-ID replays exactly the alerts after it from the table, then goes live', async (t) => {
  const user = await watcher()
  const raised = await raise(app, ['2025-01', '2025-02', '2025-03', '2025-04'].map((m) => change(user.watched, m)))
  const wire = (r: typeof raised[number]) => ({ id: String(r.seq), event: 'alert', data: r.alert })

  const s = await rawStream(ALERTS_URL, { ...user.auth, 'last-event-id': String(raised[1].seq) })
  t.teardown(() => s.abort())
  t.same(await eventsOf(s, 2, 'the replay'), [wire(raised[2]), wire(raised[3])], 'the alerts after seq 2, in order')
  const live = await raise(app, [change(user.watched, '2025-05')])
  t.same(await eventsOf(s, 3, 'the live alert'), [wire(raised[2]), wire(raised[3]), wire(live[0])], 'then the next, once')

  const q = await rawStream(`${ALERTS_URL}?lastEventId=0`, user.auth)
  t.teardown(() => q.abort())
  t.same((await eventsOf(q, 5, 'the whole replay')).map((e) => e.id), ['1', '2', '3', '4', '5'], '?lastEventId=0 replays every alert')

  // the real client resumes by itself with the id it last saw
  const c = openEventSource(ALERTS_URL, user.auth)
  t.teardown(() => c.close())
  await until(() => c.opens() === 1, { what: 'the client open' })
  const next = await raise(app, [change(user.watched, '2025-06')])
  await c.waitFor((r) => r.length === 1, 'the next alert')
  t.equal(c.received[0].id, String(next[0].seq))
})

t.test('the session that ends ends its alert streams', async (t) => {
  const user = await watcher()
  const s = await rawStream(ALERTS_URL, { cookie: user.cookie })
  t.teardown(() => s.abort())
  await s.waitForText((text) => text.startsWith('retry:'), 'the stream open')
  const out = await app.inject({ method: 'POST', url: '/api/v1/auth/signout', headers: { ...user.auth, cookie: user.cookie } })
  t.equal(out.statusCode, 200)
  await s.waitForEnd()
  t.same(parseEvents(s.text()), [{ id: undefined, event: 'end', data: { reason: 'session-ended' } }])
})

t.test('SSE_MAX_STREAMS_PER_USER counts report and alert streams together', async (t) => {
  const user = await watcher()
  const streams: RawStream[] = []
  t.teardown(() => { for (const s of streams) s.abort() })
  streams.push(await rawStream(`${base}/api/v1/sse/${user.watched.reportId}`, user.auth))
  streams.push(await rawStream(ALERTS_URL, user.auth))
  streams.push(await rawStream(ALERTS_URL, { cookie: user.cookie }))
  t.same(streams.map((s) => s.status), [200, 200, 200], 'three streams open (SSE_MAX_STREAMS_PER_USER=3)')
  for (const url of ['/api/v1/sse/alerts', `/api/v1/sse/${user.watched.reportId}`]) {
    const refused = await app.inject({ url, headers: { accept: 'text/event-stream', ...user.auth } })
    t.equal(refused.statusCode, 429, `${url}: the fourth is refused`)
    t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
  }
  streams[1].abort()
  await until(() => app.alertHub.streamsOf((user.userId)) === 1, { what: 'the closed stream to leave' })
  const next = await rawStream(ALERTS_URL, user.auth)
  streams.push(next)
  t.equal(next.status, 200, 'a closed stream frees its place')
})

await t.test('close', async () => { await closeApp(app) })
