// The load generator: one autocannon run in its own process. The spec arrives as JSON in argv[2];
// the result goes to stdout as one JSON line. `headerSets` gives each connection its own header set,
// round-robin over the connections (e.g. one session cookie each, as many clients would). It is set
// once per connection (setupClient), so autocannon builds the request once, as it does for a plain
// run; a per-request setupRequest would rebuild it for every request and load the client instead.
import autocannon from 'autocannon'
import type { LoadSpec } from '../lib/load.ts'

const spec = JSON.parse(process.argv[2]) as LoadSpec
let next = 0
const sets = spec.headerSets?.length ? spec.headerSets : undefined
const result = await autocannon({
  url: spec.url,
  method: spec.method ?? 'GET',
  headers: spec.headers ?? {},
  body: spec.body,
  connections: spec.connections,
  pipelining: spec.pipelining,
  duration: spec.duration,
  timeout: spec.timeout,
  // (client.setHeaders refuses to run when pipelining; setting the connection's one request does the same)
  setupClient: sets && ((client) => { client.requestIterator.setRequests([{ headers: { ...spec.headers, ...sets[next++ % sets.length] } }]) })
})
process.stdout.write(JSON.stringify({
  requests: { average: result.requests.average, total: result.requests.total },
  latency: { p50: result.latency.p50, p99: result.latency.p99 },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx
}) + '\n')
