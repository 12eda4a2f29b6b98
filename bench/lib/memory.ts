// The service's memory, seen two ways: its own Prometheus exposition on METRICS_PORT (resident set
// and V8 heap as they stand, nothing forced: what a scraper in production sees), and the bench probe
// (bench/lib/probe.ts: the heap after a full collection, the live objects only, which is what shows
// a leak through the noise of garbage not yet collected).
import { loadavg } from 'node:os'
import type { Child } from './processes.ts'
import { request } from './processes.ts'
import { round } from './results.ts'

export const MiB = 2 ** 20
export const mib = (bytes: number) => round(bytes / MiB, 1)

export interface MemorySample {
  /** seconds since the sampler started */
  t: number
  /** MiB: process_resident_memory_bytes, nodejs_heap_size_used_bytes */
  rss: number
  heapUsed: number
  /** requests the service has answered so far (pir_http_requests_total, every route and status) */
  answered: number
  /** CPU seconds the service has used so far (process_cpu_seconds_total) */
  cpu: number
  /** MiB of heap after a full collection (only where asked for) */
  heapAfterGc?: number
  /** the machine's 1-minute load average */
  load: number
}

function gauge (text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)
  if (!m) throw new Error(`the metrics exposition has no ${name}`)
  return Number(m[1])
}

/** one scrape of the metrics listener; with `app`, the heap after a full collection too */
export async function sampleMemory (metricsUrl: string, t0: number, app?: Child): Promise<MemorySample> {
  const res = await request(metricsUrl, { timeoutMs: 60_000 })
  if (res.status !== 200) throw new Error(`GET ${metricsUrl}: ${res.status}`)
  const sample: MemorySample = {
    t: round((performance.now() - t0) / 1000, 1),
    rss: mib(gauge(res.body, 'process_resident_memory_bytes')),
    heapUsed: mib(gauge(res.body, 'nodejs_heap_size_used_bytes')),
    cpu: gauge(res.body, 'process_cpu_seconds_total'),
    answered: [...res.body.matchAll(/^pir_http_requests_total\{[^}]*\} (\S+)$/gm)].reduce((a, m) => a + Number(m[1]), 0),
    load: round(loadavg()[0], 2)
  }
  if (app) sample.heapAfterGc = mib((await app.memory()).heapUsed)
  return sample
}

export const memoryLine = (label: string, s: MemorySample) =>
  `    ${label.padEnd(8)} RSS ${s.rss} MiB, heap ${s.heapUsed} MiB${s.heapAfterGc !== undefined ? `, heap after GC ${s.heapAfterGc} MiB` : ''} (load ${s.load})`

/** samples every `everyS` seconds until `done` settles; the samples then */
export async function sampleWhile (done: Promise<unknown>, everyS: number, take: (t0: number) => Promise<MemorySample>): Promise<MemorySample[]> {
  const t0 = performance.now()
  const samples: MemorySample[] = []
  let finished = false
  const finish = () => { finished = true }
  done.then(finish, finish)
  while (!finished) {
    const next = performance.now() + everyS * 1000
    samples.push(await take(t0))
    const wait = next - performance.now()
    if (wait > 0) await Promise.race([done.catch(() => {}), new Promise((resolve) => setTimeout(resolve, wait))])
  }
  return samples
}

/** least-squares line through the points: slope per unit of x */
export function linearFit (xs: number[], ys: number[]): { slope: number, intercept: number } {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my)
    sxx += (xs[i] - mx) ** 2
  }
  const slope = sxx > 0 ? sxy / sxx : 0
  return { slope, intercept: my - slope * mx }
}
