// Faults: SIGTERM behind a load balancer. The service runs as `npm start` runs it (its own process,
// `src/server.ts`) with SHUTDOWN_READY_DELAY_S=2, and a balancer is modelled as one does it: it polls
// GET /health/ready and stops routing to the instance once that is not 200, while several clients
// loop requests through it over keep-alive connections and an SSE stream is open. Through a SIGTERM:
// readiness says 503 while every request is still served, the stream stays open until the listener
// closes and then ends with a whole response, the process exits 0, and not one request of the load
// fails (no reset, no refused connection, no 5xx).

import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import t from 'tap'
import { until } from '../peers/wait.ts'
import { rawStream } from '../streams/client.ts'
import { errorLines, serverWithReport } from './support.ts'

const READY_DELAY_S = 2
const CLIENTS = 6

interface Answer { status: number, headers: IncomingHttpHeaders, reusedSocket: boolean, body: string }
interface Outcome { path: string, start: number, status: number, reusedSocket: boolean, error?: string }
interface LogLine { msg?: string, readyDelayS?: number, signal?: string }

/** one GET over `agent` (node:http: a reset is reported as such, never retried behind our back) */
function get (url: string, headers: Record<string, string>, agent: Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, reusedSocket: req.reusedSocket, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')))
    req.end()
  })
}

t.test('SIGTERM with a ready delay: the balancer leaves on readiness 503, no request of the load fails', async (t) => {
  const { server, logs, user, id } = await serverWithReport<LogLine>(t, 'drain', { WORKERS: '0', SHUTDOWN_READY_DELAY_S: String(READY_DELAY_S) })
  const raw = await rawStream(`${server.url}/api/v1/sse/${id}`, user.auth)
  t.teardown(() => raw.abort())
  await raw.waitForText((text) => text.includes('event: status'), 'the draft state')

  // the balancer: routes while the instance is ready; polls on a connection of its own
  let routing = true
  let notReady: { body: unknown, streamOpen: boolean } | null = null
  let lateRequest: Promise<Answer> | null = null
  const poller = (async () => {
    while (routing) {
      try {
        const ready = await get(`${server.url}/api/v1/health/ready`, {}, false)
        if (ready.status !== 200) {
          routing = false
          notReady = { body: JSON.parse(ready.body), streamOpen: !raw.ended() }
          // a request a balancer had already routed when it saw the 503 still reaches the instance
          lateRequest = get(`${server.url}/api/v1/auth/info`, user.auth, false)
        }
      } catch {
        routing = false
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()

  // the load: keep-alive clients that send only while the balancer routes to the instance
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  t.teardown(() => agent.destroy())
  const paths = ['/auth/info', `/report/${id}`, '/report?limit=5', '/health']
  const outcomes: Outcome[] = []
  const clients = Array.from({ length: CLIENTS }, async (_, i) => {
    for (let n = i; routing; n++) {
      const path = paths[n % paths.length]
      const start = Date.now()
      try {
        const res = await get(`${server.url}/api/v1${path}`, user.auth, agent)
        outcomes.push({ path, start, status: res.status, reusedSocket: res.reusedSocket })
      } catch (err) {
        outcomes.push({ path, start, status: 0, reusedSocket: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message })
      }
    }
  })
  await until(() => outcomes.filter((o) => o.status === 200).length >= 100, { timeoutMs: 60_000, what: 'the load to run' })

  const sigterm = Date.now()
  server.child.kill('SIGTERM')
  await poller
  await Promise.all(clients)
  t.ok(notReady, 'the balancer saw readiness fail and stopped routing')
  t.match(notReady, { body: { status: 'unavailable', db: 'ok', migrations: 'applied', shuttingDown: true } }, 'readiness 503: shutting down')
  t.ok(notReady!.streamOpen, 'the SSE stream was still open when readiness said 503')
  const late = await lateRequest!
  t.equal(late.status, 200, 'a request that arrives after readiness said 503 is still served')
  t.equal(late.headers.connection, 'close', '… and ends its connection')

  await raw.waitForEnd()
  t.ok(raw.complete(), 'the stream ended with a whole chunked response once the listener closed')
  t.equal(await server.exited, 0, 'exit code 0')

  const failed = outcomes.filter((o) => o.status !== 200)
  t.same(failed.map((o) => `${o.path} ${o.status || o.error}`), [], `not one of the ${outcomes.length} requests of the load failed`)
  const reused = outcomes.filter((o) => o.reusedSocket).length
  t.ok(reused > outcomes.length / 2, `the load ran on keep-alive connections (${reused} of ${outcomes.length} requests on a reused one)`)
  t.comment(`${outcomes.filter((o) => o.start >= sigterm).length} requests of the load were sent after the SIGTERM, before the balancer saw the 503`)
  const lines = logs()
  t.match(lines.find((l) => l.msg?.startsWith('draining')), { readyDelayS: READY_DELAY_S }, 'the log says the instance is draining, and for how long')
  t.same(errorLines(server.output()), [], 'nothing logged at error level')
})
