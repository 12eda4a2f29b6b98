// The load generator: one autocannon run in its own process. The spec arrives as JSON in argv[2];
// the result goes to stdout as one JSON line. `headerSets` gives each connection its own header set,
// round-robin over the connections (e.g. one session cookie each, as many clients would). It is set
// once per connection (setupClient), so autocannon builds the request once, as it does for a plain
// run; a per-request setupRequest would rebuild it for every request and load the client instead.
// `requestSets` gives each connection its own list of requests, cycled through (its own client
// address and accounts), built once per connection the same way; a request of such a list may name
// its own path (each connection reading its own reports). `rate` caps the requests per second of all
// connections together (autocannon's overallRate). With `untilStopped` the run lasts until a line
// arrives on stdin (or stdin closes) or `duration` passes, whichever comes first, and "started" is
// written to stdout once the connections are being opened. A long spec arrives as `@file`.
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import type { LoadSpec } from '../lib/load.ts'

const arg = JSON.parse(process.argv[2]) as LoadSpec | string
const spec = (typeof arg === 'string' ? JSON.parse(readFileSync(arg.slice(1), 'utf8')) : arg) as LoadSpec
let next = 0
const sets = spec.headerSets?.length ? spec.headerSets : undefined
const requestSets = spec.requestSets?.length ? spec.requestSets : undefined
const instance = autocannon({
  url: spec.url,
  method: spec.method ?? 'GET',
  headers: spec.headers ?? {},
  body: spec.body,
  connections: spec.connections,
  pipelining: spec.pipelining,
  duration: spec.duration,
  timeout: spec.timeout,
  ...(spec.rate ? { overallRate: spec.rate } : {}),
  // (client.setHeaders refuses to run when pipelining; setting the connection's one request does the same)
  setupClient: requestSets
    ? (client) => {
        const list = requestSets[next++ % requestSets.length]
        client.requestIterator.setRequests(list.map((r) => ({ method: spec.method ?? 'GET', headers: { ...spec.headers, ...r.headers }, body: r.body ?? spec.body, ...(r.path ? { path: r.path } : {}) })))
      }
    : sets && ((client) => { client.requestIterator.setRequests([{ headers: { ...spec.headers, ...sets[next++ % sets.length] } }]) })
})
if (spec.untilStopped) {
  const stop = () => { instance.stop() }
  process.stdin.once('data', stop)
  process.stdin.once('end', stop)
  process.stdout.write('started\n')
}
const result = await instance
if (spec.untilStopped) process.stdin.destroy()
process.stdout.write(JSON.stringify({
  requests: { average: result.requests.average, total: result.requests.total, sent: result.requests.sent },
  latency: { p50: result.latency.p50, p99: result.latency.p99 },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  duration: result.duration
}) + '\n')
