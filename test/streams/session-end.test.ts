// Streams follow their session and their report (src/services/streams/hub.ts, src/plugins/sse.ts): a
// sign-out ends the session's streams with `event: end` {"reason":"session-ended"} and the chunked
// end, within a second; deleting the report ends its streams ("report-deleted"); a Bearer stream ends
// when its token expires ("token-expired"); the end event has no id, unlike status and done. One user
// holds at most SSE_MAX_STREAMS_PER_USER (20) streams: the 21st is 429 with Retry-After. Across two
// instances: test/scale-out/revocation.test.ts.
import t, { type Test } from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { until } from '../peers/wait.ts'
import { claims } from '../accounts/support.ts'
import { closeApp, listen, openEventSource, parseEvents, rawStream, type RawStream } from './client.ts'

const app = await build(t, { WORKERS: '0', SIGNUP_FREE_REPORTS: '10', ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' })
await seedReportData(app.db)
const base = await listen(app)
const sseUrl = (id: string) => `${base}/api/v1/sse/${id}`
const draft = (id: string) => ({ reportId: id, status: 'draft', progress: 0, stage: null })

/** the stream's text, once it shows its current state */
const opened = async (s: RawStream) => await s.waitForText((x) => x.includes('event: status'), 'the current state')

/** the stream ended with `event: end` for this reason as its last words, then the chunked end */
async function endedFor (t: Test, s: RawStream, reason: string, timeoutMs: number, what: string) {
  await s.waitForEnd(timeoutMs)
  t.ok(s.complete(), `${what}: the response ends whole (the last chunk), not a broken connection`)
  t.ok(s.text().endsWith(`event: end\ndata: {"reason":"${reason}"}\n\n`), `${what}: the last words are event: end, ${reason}`)
  const events = parseEvents(s.text())
  t.same(events.at(-1), { id: undefined, event: 'end', data: { reason } }, `${what}: the end event carries no id`)
}

t.test('sign-out ends the session\'s streams within 1 s; another session\'s stream stays', async (t) => {
  const user = await signedInUser(app)
  const id = await createReport(app, user.auth)
  // a second session of the same user
  const other = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: 'correct horse battery staple', token: true } })
  const otherAuth = { authorization: `Bearer ${other.json().token as string}` }

  const bearer = await rawStream(sseUrl(id), user.auth)
  const cookie = openEventSource(sseUrl(id), { cookie: user.cookie })
  const kept = await rawStream(sseUrl(id), otherAuth)
  t.teardown(() => { bearer.abort(); cookie.close(); kept.abort() })
  await opened(bearer)
  await opened(kept)
  await cookie.waitFor((r) => r.length === 1, 'the cookie stream\'s current state')

  const out = await app.inject({ method: 'POST', url: '/api/v1/auth/signout', headers: { ...user.auth, cookie: user.cookie } })
  t.equal(out.statusCode, 200)
  await endedFor(t, bearer, 'session-ended', 1000, 'the Bearer stream')
  await cookie.waitFor((r) => r.some((e) => e.type === 'end'), 'the cookie stream\'s end event', 1000)
  t.same(cookie.received.map((e) => [e.type, e.data]), [['status', draft(id)], ['end', { reason: 'session-ended' }]],
    'EventSource sees the end event, distinct from done')
  t.equal((await cookie.waitForFailure('the reconnect')).code, 401, 'its reconnect is refused: the client stops')
  t.notOk(kept.ended(), 'the other session\'s stream is still open')
  t.equal(app.sseHub.subscriberCount(), 1)
})

t.test('deleting a report ends its streams with report-deleted; other reports\' streams stay', async (t) => {
  const user = await signedInUser(app)
  const id = await createReport(app, user.auth)
  const otherId = await createReport(app, user.auth)
  const s = await rawStream(sseUrl(id), user.auth)
  const c = openEventSource(sseUrl(id), { cookie: user.cookie })
  const kept = await rawStream(sseUrl(otherId), user.auth)
  t.teardown(() => { s.abort(); c.close(); kept.abort() })
  await opened(s)
  await opened(kept)
  await c.waitFor((r) => r.length === 1, 'the cookie stream\'s current state')

  const del = await app.inject({ method: 'DELETE', url: `/api/v1/report/${id}`, headers: user.auth })
  t.equal(del.statusCode, 204)
  await endedFor(t, s, 'report-deleted', 1000, 'the deleted report\'s stream')
  await c.waitFor((r) => r.some((e) => e.type === 'end'), 'the EventSource end event', 1000)
  t.same(c.received.at(-1)?.data, { reason: 'report-deleted' })
  t.equal((await c.waitForFailure('the reconnect')).code, 404, 'its reconnect finds no report: the client stops')
  t.notOk(kept.ended(), 'the other report\'s stream is still open')
})

t.test('a Bearer stream ends with token-expired when its JWT expires; the cookie stream of the session stays', async (t) => {
  const user = await signedInUser(app)
  const id = await createReport(app, user.auth)
  const { sub, sid } = claims(user.token) as { sub: string, sid: string }
  // issued JWT_TTL - 2 seconds ago: it expires in two seconds
  const iat = Math.floor(Date.now() / 1000) - app.config.jwt.ttl + 2
  const shortLived = app.jwt.sign({ sub, sid, iat })
  const s = await rawStream(sseUrl(id), { authorization: `Bearer ${shortLived}` })
  const viaCookie = await rawStream(sseUrl(id), { cookie: user.cookie })
  t.teardown(() => { s.abort(); viaCookie.abort() })
  t.equal(s.status, 200)
  await opened(s)
  await endedFor(t, s, 'token-expired', 10_000, 'the short-lived token\'s stream')
  t.notOk(viaCookie.ended(), 'the cookie stream has no token to expire')
})

t.test('one user holds at most SSE_MAX_STREAMS_PER_USER (20) streams: the 21st is 429 with Retry-After', async (t) => {
  const user = await signedInUser(app)
  const stranger = await signedInUser(app)
  const id = await createReport(app, user.auth)
  const theirs = await createReport(app, stranger.auth)
  const streams: RawStream[] = []
  t.teardown(() => { for (const s of streams) s.abort() })
  // Bearer and cookie count alike: they are the same user's
  for (let i = 0; i < 20; i++) streams.push(await rawStream(sseUrl(id), i % 2 ? user.auth : { cookie: user.cookie }))
  t.same(streams.map((s) => s.status), Array(20).fill(200), 'twenty streams open')

  const refused = await app.inject({ url: `/api/v1/sse/${id}`, headers: { accept: 'text/event-stream', ...user.auth } })
  t.equal(refused.statusCode, 429, 'the 21st is refused')
  t.has(refused.json(), { code: 429, message: 'too many requests' }, 'GeneralError')
  t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
  const byCookie = await app.inject({ url: `/api/v1/sse/${id}`, headers: { accept: 'text/event-stream', cookie: user.cookie } })
  t.equal(byCookie.statusCode, 429, 'by cookie too')

  const strangers = await rawStream(sseUrl(theirs), stranger.auth)
  streams.push(strangers)
  t.equal(strangers.status, 200, 'another user is not affected')

  const before = app.sseHub.subscriberCount()
  streams[0].abort()
  await until(() => app.sseHub.subscriberCount() === before - 1, { what: 'the closed stream to leave' })
  const next = await rawStream(sseUrl(id), user.auth)
  streams.push(next)
  t.equal(next.status, 200, 'a closed stream frees its place')
})

// Every test above has run (tap runs them in order): close the listening app now
await t.test('close', async () => { await closeApp(app) })
