// Faults: SIGTERM under load. The service runs as `npm start` runs it (its own process,
// `src/server.ts`, one report worker), on the suite's database (embedded PGlite in its data
// directory, or a PostgreSQL database of its own). While clients keep sending requests over
// keep-alive connections, SSE streams are open and an upload is half sent, it gets SIGTERM: the
// upload still completes (200), every request the server took is answered, the streams end cleanly
// (whole responses, EventSource reconnects), and the process exits 0 within 10 s.
import { once } from 'node:events'
import { Agent, request, type IncomingMessage } from 'node:http'
import t from 'tap'
import { until } from '../peers/wait.ts'
import { openEventSource, rawStream } from '../streams/client.ts'
import { brief, errorLines, fixture, INGEST_TOKEN, serverWithReport, steadyLoad } from './support.ts'

/** the process is gone this long after SIGTERM at the latest */
const EXIT_LIMIT_MS = 10_000

interface LogLine { msg?: string, reqId?: string, req?: { url: string }, res?: { statusCode: number }, level: number }

t.test('SIGTERM under load: in-flight requests finish, streams end cleanly, exit 0 within 10 s', async (t) => {
  const { server, logs, user, id } = await serverWithReport<LogLine>(t, 'sigterm', { WORKERS: '1', SIGNUP_FREE_REPORTS: '3' })
  const sse = `${server.url}/api/v1/sse/${id}`
  const clients = [openEventSource(sse, user.auth), openEventSource(sse, { cookie: user.cookie })]
  t.teardown(() => { for (const c of clients) c.close() })
  const raw = await rawStream(sse, user.auth)
  t.teardown(() => raw.abort())
  for (const c of clients) await c.waitFor((r) => r.length === 1, 'the draft state')

  const load = steadyLoad(t, server, user.auth, ['/auth/info', `/report/${id}`, '/report?limit=5'])
  await until(() => load.outcomes.filter((o) => o.status === 200).length >= 20, { timeoutMs: 30_000, what: 'the load to run' })

  // an upload in flight: its first half sent over a keep-alive connection, the server reading it
  const agent = new Agent({ keepAlive: true })
  t.teardown(() => agent.destroy())
  const upload = request(`${server.url}/api/v1/ingest`, {
    method: 'POST', agent, headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' }
  })
  const answered = once(upload, 'response') as Promise<[IncomingMessage]>
  const half = fixture.indexOf('\n', fixture.length / 2) + 1
  upload.write(fixture.subarray(0, half))
  await until(() => logs().some((l) => l.msg === 'incoming request' && l.req?.url === '/api/v1/ingest' && !logs().some((c) => c.reqId === l.reqId && c.msg === 'request completed')),
    { what: 'the server to be reading the upload' })

  const sigterm = Date.now()
  server.child.kill('SIGTERM')
  await until(() => logs().some((l) => l.msg === 'shutting down'), { what: 'the server to begin its shutdown' })
  // streams: ended by the server with a whole response, while the upload is still coming in
  await raw.waitForEnd()
  const streamsEndedMs = Date.now() - sigterm
  t.ok(raw.complete(), `the raw stream ended cleanly (a whole chunked response) ${streamsEndedMs} ms after SIGTERM`)
  upload.end(fixture.subarray(half))
  const [res] = await answered
  let text = ''
  for await (const chunk of res) text += chunk
  t.equal(res.statusCode, 200, 'the upload in flight at SIGTERM completed')
  t.match(JSON.parse(text), { imported: { profile: Number }, invalid: 0 }, `… with its result (${text})`)

  const code = await server.exited
  const exitMs = Date.now() - sigterm
  t.equal(code, 0, 'exit code 0')
  t.ok(exitMs <= EXIT_LIMIT_MS, `the process exited ${exitMs} ms after SIGTERM (limit ${EXIT_LIMIT_MS})`)
  await load.stop()

  // EventSource takes the end of a stream as "reconnect"
  for (const c of clients) {
    await until(() => c.errors.length > 0, { what: 'the EventSource to see the end' })
    t.equal(c.errors[0].readyState, c.es.CONNECTING, 'the end makes EventSource reconnect (as it would to another instance)')
  }

  // every request the server took was answered; the clients saw 200 (requests that came during the
  // close were served too) or, once the server stopped taking them, a closed or refused connection,
  // never a 5xx
  const lines = logs()
  const taken = lines.filter((l) => l.msg === 'incoming request' && !l.req!.url.startsWith('/api/v1/sse/'))
  const completed = new Set(lines.filter((l) => l.msg === 'request completed').map((l) => l.reqId))
  t.same(taken.filter((l) => !completed.has(l.reqId)).map((l) => l.req!.url), [], `each of the ${taken.length} requests the server took was answered`)
  const { outcomes } = load
  t.same(outcomes.filter((o) => o.status !== 200 && o.status !== 0).map(brief), [], 'every answer 200')
  t.same(outcomes.filter((o) => o.status === 0 && o.start < sigterm).map(brief), [], 'no request sent before the SIGTERM went unanswered')
  const after = outcomes.filter((o) => o.start >= sigterm)
  t.comment(`load: ${outcomes.length} requests, ${after.length} sent after the SIGTERM: ` +
    `${after.filter((o) => o.status === 200).length} answered 200, ${after.filter((o) => o.status === 0).length} not taken (connection closed or refused) ` +
    `(${[...new Set(after.map((o) => o.error).filter(Boolean))].join('; ')})`)
  t.match(lines.find((l) => l.msg === 'shutting down'), { signal: 'SIGTERM' }, 'the log says why it stopped')
  t.same(errorLines(server.output()), [], 'nothing logged at error level')
})
