// The typed client (client/) against a real listening server with a worker and seeded profile data:
// sign in with the typed fetch client (the token in the body), create a report, generate it, follow
// its stream to `done` with followReport (fetch + Bearer), read the report; refresh from the cookie
// sign-in set; and a dropped stream resumed with Last-Event-ID, no event lost or repeated.
import t from '../tap.ts'
import { createApiClient, followReport, parseEventStream, type ReportEvent, type SseDone, type SseEnd, type SseStatus } from '../../client/src/index.ts'
import type { SseDoneData, SseEndData, SseStatusData } from '../../schemas/sse.ts'
import { build, GOOD_PASSWORD, uniqueEmail } from '../helper.ts'
import { seedReportData } from '../reports/seed.ts'
import { until } from '../peers/wait.ts'
import { closeApp, listen } from '../streams/client.ts'

// the generated payload types are the TypeBox schemas' types (a compile-time check: typecheck fails otherwise)
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const typesAgree: [Same<SseStatus, SseStatusData>, Same<SseDone, SseDoneData>, Same<SseEnd, SseEndData>] = [true, true, true]

const app = await build(t, { WORKERS: '1', SIGNUP_FREE_REPORTS: '10' })
t.teardown(() => closeApp(app))
await seedReportData(app.db)
const base = await listen(app)

async function signedInClient () {
  const email = uniqueEmail('client')
  const up = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email, password: GOOD_PASSWORD, token: 'captcha' } })
  if (up.json().status !== 'success') throw new Error(`signup failed: ${up.body}`)
  const client = createApiClient({ baseUrl: base })
  const result = await client.signIn(email, GOOD_PASSWORD)
  return { client, result }
}

async function newReport (client: ReturnType<typeof createApiClient>) {
  const { data, response } = await client.api.POST('/api/v1/report', { body: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  if (response.status !== 201 || !data) throw new Error(`create failed: ${response.status}`)
  return data.id
}

t.ok(typesAgree.every(Boolean))

t.test('sign in, create, generate, follow to done, read the report', async (t) => {
  const { client, result } = await signedInClient()
  t.equal(result.ok, true)
  t.equal(result.ok && result.token, client.token, 'sign-in kept the JWT it returned')
  t.type(client.token, 'string')

  const id = await newReport(client)
  const gen = await client.api.POST('/api/v1/report/{id}/generate', { params: { path: { id } } })
  t.equal(gen.response.status, 202)

  const events: ReportEvent[] = []
  const followed = await followReport(base, id, { token: client.token!, onEvent: (e) => { events.push(e) } })
  t.equal(followed.outcome, 'done')
  t.equal(followed.done?.status, 'ready')
  t.equal(followed.done?.reportId, id)
  t.equal(events.at(-1)?.type, 'done', 'done is the last event')
  t.ok(events.slice(0, -1).every((e) => e.type === 'status' && e.data.reportId === id), 'status events before it')
  t.equal(followed.lastEventId, events.at(-1)?.id, 'the last event id is kept for a resume')

  // the stream of a finished report the client has seen to the end: 204, finished
  const again = await followReport(base, id, { token: client.token!, lastEventId: followed.lastEventId })
  t.same(again, { outcome: 'finished', lastEventId: followed.lastEventId })

  const report = await client.api.GET('/api/v1/report/{id}', { params: { path: { id } } })
  t.equal(report.response.status, 200)
  t.equal(report.data?.id, id)
  t.equal(report.data?.status, 'ready')
})

t.test('refresh from the session cookie sign-in set; errors as ApiError', async (t) => {
  const { client } = await signedInClient()
  const first = client.token
  const fresh = await client.refresh()
  t.type(fresh, 'string')
  t.equal(client.token, fresh, 'the client sends the new token from now on')
  t.not(first, undefined)
  const me = await client.api.GET('/api/v1/report', { params: { query: { limit: 10, offset: 0 } } })
  t.equal(me.response.status, 200, 'the refreshed token is accepted')

  await t.rejects(followReport(base, '00000000-0000-4000-8000-000000000000', { token: fresh }), { name: 'ApiError', status: 404 })
  await t.rejects(followReport(base, '00000000-0000-4000-8000-000000000000', { token: 'not.a.jwt' }), { name: 'ApiError', status: 401 })
  const anonymous = createApiClient({ baseUrl: base })
  await t.rejects(anonymous.refresh(), { name: 'ApiError', status: 401 })
})

t.test('a refused sign-in is a result without a token, and the client keeps none', async (t) => {
  const email = uniqueEmail('client-refused')
  const up = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email, password: GOOD_PASSWORD, token: 'captcha' } })
  t.equal(up.json().status, 'success')
  const client = createApiClient({ baseUrl: base })
  const wrong = await client.signIn(email, `${GOOD_PASSWORD}-wrong`)
  t.same(wrong, { ok: false, httpStatus: 200, message: 'Wrong e-mail or password', field: 'password' })
  t.equal(client.token, undefined)
  // @ts-expect-error the token exists only once `ok` says the sign-in succeeded
  t.equal(wrong.token, undefined)

  // an error answer (here 404: a base URL the service does not serve) is a result too, not an exception
  const elsewhere = createApiClient({ baseUrl: `${base}/elsewhere` })
  const notFound = await elsewhere.signIn(email, GOOD_PASSWORD)
  t.equal(notFound.ok, false)
  if (!notFound.ok) {
    t.equal(notFound.httpStatus, 404)
    t.type(notFound.message, 'string')
  }
  t.equal(elsewhere.token, undefined)
  t.equal(client.token, undefined)
})

t.test('a dropped stream resumes with Last-Event-ID: no event lost or repeated', async (t) => {
  const { client } = await signedInClient()
  const id = await newReport(client)
  const sentLastEventIds: Array<string | null> = []
  const events: ReportEvent[] = []
  const followed = followReport(base, id, {
    token: () => client.token!,
    fetch: droppingFetch(sentLastEventIds),
    onEvent: (e) => { events.push(e) }
  })
  // the draft's state (no id) arrives first; then the generation's events, the first of which drops the connection
  await until(() => events.length > 0, { what: 'the first event' })
  t.same(events[0], { type: 'status', id: undefined, data: { reportId: id, status: 'draft', progress: 0, stage: null } })
  const gen = await client.api.POST('/api/v1/report/{id}/generate', { params: { path: { id } } })
  t.equal(gen.response.status, 202)
  const result = await followed

  t.equal(result.outcome, 'done')
  const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id))
  t.same(ids, ids.map((_, i) => i + 1), 'every event id 1..n once, in order')
  t.equal(events.at(-1)?.type, 'done')
  t.equal(sentLastEventIds.length, 2, 'one reconnect')
  t.same(sentLastEventIds, [null, '1'], 'the reconnect resumes after the event before the drop')
})

t.test('the parser: CRLF and CR line ends, comments, retry, multi-line data, an id without an event', async (t) => {
  const got: Array<{ type: string, id: string | undefined, data: string }> = []
  const comments: string[] = []
  let retry = 0
  const p = parseEventStream({ onEvent: (e) => got.push(e), onComment: (c) => comments.push(c), onRetry: (ms) => { retry = ms } })
  for (const chunk of ['\ufeffretry: 1500\r', '\n: ping\r\n\r\nid: 7\nevent: status\ndata: a\ndata:b\n\n', 'id: 8\rdata: x\r\r', 'retry: soon\n\n']) p.push(chunk)
  t.same(got, [{ type: 'status', id: '7', data: 'a\nb' }, { type: 'message', id: '8', data: 'x' }])
  t.same(comments, ['ping'])
  t.equal(retry, 1500, 'an invalid retry is ignored')
  t.equal(p.lastEventId, '8')
})

/**
 * fetch, but the first stream is cut just after its first event that carries an id (as a dropped
 * connection would: the reader fails); records the Last-Event-ID each request sent
 */
function droppingFetch (sent: Array<string | null>): typeof fetch {
  let dropped = false
  return async (input, init) => {
    sent.push(new Headers(init?.headers).get('last-event-id'))
    const res = await fetch(input, init)
    if (dropped || res.status !== 200 || !res.body) return res
    dropped = true
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    const encoder = new TextEncoder()
    let text = ''
    let passed = 0
    const body = new ReadableStream<Uint8Array>({
      async pull (controller) {
        const { value, done } = await reader.read()
        if (done) { controller.close(); return }
        text += value
        let cutAt = -1
        for (let pos = 0, end; (end = text.indexOf('\n\n', pos)) !== -1; pos = end + 2) {
          if (/^id: /m.test(text.slice(pos, end))) { cutAt = end + 2; break }
        }
        if (cutAt === -1) {
          controller.enqueue(encoder.encode(text.slice(passed)))
          passed = text.length
          return
        }
        controller.enqueue(encoder.encode(text.slice(passed, cutAt)))
        passed = cutAt
        await reader.cancel()
        controller.error(new TypeError('terminated'))
      },
      cancel: () => reader.cancel()
    })
    return new Response(body, { status: res.status, headers: res.headers })
  }
}
