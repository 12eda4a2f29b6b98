// The load generator of `npm run load` and `npm run soak` (bench/lib/mix.ts): one autocannon run in
// its own process whose connections each send one kind of request, the kinds interleaved as the
// connections are made (info, report, info, report, refresh, ...). Interleaved, not one run per
// kind: a busy Node server accepts one connection per event-loop iteration (libuv >= 1.45), so the
// connections made last wait longest, and a kind made last would wait the longest every time.
// The spec (MixSpec) arrives as JSON in argv[2]; per-kind figures go to stdout as one JSON line.
import autocannon from 'autocannon'
import type { MixKindResult, MixSpec } from '../lib/mix.ts'

const spec = JSON.parse(process.argv[2]) as MixSpec
const results = spec.kinds.map((k) => ({ name: k.name, connections: 0, statusCodes: {} as Record<string, number>, latencies: [] as number[], timeouts: 0, connectionErrors: 0, errorCodes: {} as Record<string, number> }))
// one slot per connection of each kind, spread out: weights 2, 2, 1 give 0 1 0 1 2
const pattern: number[] = []
for (let round = 0; pattern.length < spec.kinds.reduce((a, k) => a + k.weight, 0); round++) {
  spec.kinds.forEach((k, i) => { if (round < k.weight) pattern.push(i) })
}
// each kind's requests, round-robin over all its connections (e.g. a session cookie each)
const next = spec.kinds.map(() => 0)
let made = 0

await autocannon({
  url: spec.url,
  connections: spec.connections,
  pipelining: 1,
  duration: spec.duration,
  timeout: spec.timeout,
  overallRate: spec.overallRate,
  setupClient (client) {
    const i = pattern[made++ % pattern.length]
    const kind = spec.kinds[i]
    const r = results[i]
    r.connections++
    client.requestIterator.setRequests([{
      method: kind.method,
      setupRequest: (req) => {
        const one = kind.requests[next[i]++ % kind.requests.length]
        return { ...req, path: one.path, headers: { ...req.headers, ...one.headers } }
      }
    }])
    client.on('response', (status, _bytes, ms) => {
      r.statusCodes[status] = (r.statusCodes[status] ?? 0) + 1
      r.latencies.push(ms)
    })
    client.on('timeout', () => { r.timeouts++ })
    client.on('connError', (err) => {
      r.connectionErrors++
      const code = err.code ?? err.message
      r.errorCodes[code] = (r.errorCodes[code] ?? 0) + 1
    })
  }
})
// latencies of every answer, whatever its status, as each response event gives them (autocannon's own
// figures count 2xx only, and with a rate they add the answers coordinated omission would have hidden)
const percentile = (sorted: number[], p: number) => sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]) : 0
const summary = (latencies: number[]) => {
  const sorted = latencies.sort((a, b) => a - b)
  return { requests: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
}
const kinds: MixKindResult[] = results.map(({ latencies, ...r }) => ({ ...r, ...summary(latencies) }))
process.stdout.write(JSON.stringify({ kinds, total: summary(results.flatMap((r) => r.latencies)) }) + '\n')
