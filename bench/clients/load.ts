// The load generator: one autocannon run in its own process. The spec arrives as JSON in argv[2];
// the result goes to stdout as one JSON line. `headerSets` spreads the requests over several header
// sets, round-robin per request (e.g. one session cookie each, as many clients would); autocannon
// allows per-connection headers only without pipelining, per-request setup with it too.
import autocannon from 'autocannon'
import type { LoadSpec } from '../lib/load.ts'

const spec = JSON.parse(process.argv[2]) as LoadSpec
let next = 0
const result = await autocannon({
  url: spec.url,
  method: spec.method ?? 'GET',
  headers: spec.headers ?? {},
  body: spec.body,
  connections: spec.connections,
  pipelining: spec.pipelining,
  duration: spec.duration,
  timeout: spec.timeout,
  requests: spec.headerSets?.length
    ? [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...spec.headerSets![next++ % spec.headerSets!.length] } }) }]
    : undefined
})
process.stdout.write(JSON.stringify({
  requests: { average: result.requests.average, total: result.requests.total },
  latency: { p50: result.latency.p50, p99: result.latency.p99 },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx
}) + '\n')
