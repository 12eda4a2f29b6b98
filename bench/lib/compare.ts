// The HTTP comparison every load scenario shares: a warm-up of each side, then rounds interleaved
// (baseline, candidate, baseline, candidate ...) with -c 100 -p 1 and with -c 100 -p 10, so that a
// burst of noise from the shared machine lands on both sides rather than on one.
import { runLoad, type LoadResult, type LoadSpec } from './load.ts'
import { request } from './processes.ts'
import { mean, median, round } from './results.ts'
import { settings } from './settings.ts'

export type Side = Omit<LoadSpec, 'connections' | 'pipelining' | 'duration'> & {
  label: string
  /**
   * starts another process of the same server and gives the side's URL on it. With
   * BENCH_PROCESSES > 1 each side is measured on the fastest of that many processes, picked by a
   * warm-up: about one Node process in eight spends its life on a V8 slow path, 15-20 % slower
   * (README, Benchmarks), and one such process would move a ratio by that much either way.
   */
  another?: () => Promise<string>
  /**
   * the requests drain() sends, one per run in turn (shared by sides that share the list): each must
   * queue behind the run's backlog and be refused by no limit of the server. Without them drain()
   * sends the first request of the first connection.
   */
  drainRequests?: Array<{ headers?: Record<string, string>, body?: string }>
}

export interface SideFigures {
  rps: number
  p50: number
  p99: number
  errors: number
  rounds: LoadResult[]
}

export interface ConfigFigures {
  connections: number
  pipelining: number
  baseline: SideFigures
  candidate: SideFigures
  ratio: number
}

export const PIPELINING = [1, 10] as const

function figures (rounds: LoadResult[]): SideFigures {
  return {
    rps: round(mean(rounds.map((r) => r.rps)), 1),
    p50: round(median(rounds.map((r) => r.p50)), 2),
    p99: round(median(rounds.map((r) => r.p99)), 2),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    rounds
  }
}

/** runs of one side in compareHttp at most (warm-ups included): drain() is called once after each */
export function runsPerSide (configurations = PIPELINING.length): number {
  return (settings.warmup > 0 ? 2 * settings.processes : 0) + settings.rounds * configurations
}

const drainsSent = new WeakMap<object, number>()

/**
 * When autocannon stops, the requests it had in flight are still being served (a queue of argon2
 * hashes can take many seconds): one more request of the same kind returns only once they are
 * done, so that no run starts behind the previous run's backlog. That holds only if the request
 * queues behind them: a request a limit refuses is answered at once, so a side whose runs reuse
 * requests that limits count (sign-ins of the same accounts) gives drainRequests, each sent once.
 * An answer outside 2xx is reported: it did not wait.
 */
async function drain (s: Side): Promise<void> {
  const list = s.drainRequests
  const sent = list ? drainsSent.get(list) ?? 0 : 0
  if (list?.length) drainsSent.set(list, sent + 1)
  const next = list?.length ? list[sent % list.length] : s.requestSets?.[0]?.[0]
  const body = next?.body ?? s.body
  try {
    const res = await request(s.url, { method: s.method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers, ...s.headerSets?.[0], ...next?.headers }, body, timeoutMs: 300_000 })
    if (res.status >= 300) console.log(`    (${s.label}: the drain was answered ${res.status} without waiting; the next run may start behind the backlog)`)
  } catch (err) {
    // on a loaded machine a thousand queued hashes can take longer: the next run then starts behind them
    console.log(`    (${s.label}: the backlog did not drain: ${(err as Error).message}; the next run starts behind it)`)
  }
}

/** per server process (URL): how far through its request list each connection has gone, all runs together */
const listOffsets = new Map<string, number>()
const rotate = <T>(list: T[], k: number) => list.slice(k % list.length).concat(list.slice(0, k % list.length))

/**
 * One run, then its drain. autocannon starts every connection at the head of its request list: each
 * run here starts where the last run on that process stopped instead (answers per connection, plus
 * the requests in flight at the stop), so that every request of a list comes round as often as the
 * others. Otherwise the head of each list takes one request per run: with sign-ins, a dozen runs
 * put its account over the service's per-e-mail limit (10 in 15 minutes) and the run counts 429s.
 */
async function load (spec: LoadSpec, s: Side): Promise<LoadResult> {
  const offset = listOffsets.get(spec.url) ?? 0
  const r = await runLoad({ ...spec, requestSets: spec.requestSets?.map((list) => rotate(list, offset)) })
  listOffsets.set(spec.url, offset + Math.ceil(r.total / spec.connections) + spec.pipelining)
  await drain(s)
  return r
}

const pad = (s: string | number, n: number) => String(s).padStart(n)
export function printRow (label: string, r: { rps: number, p50: number, p99: number, errors: number }) {
  console.log(`    ${label.padEnd(28)} ${pad(r.rps.toFixed(1), 10)} req/s  p50 ${pad(r.p50.toFixed(1), 7)} ms  p99 ${pad(r.p99.toFixed(1), 7)} ms  errors ${r.errors}`)
}

/**
 * The fastest of settings.processes processes of a side's server: each is warmed up, then run once
 * more as long as a warm-up; the faster in that second run is the one measured (the others idle).
 */
async function fastestProcess (side: Side, spec: (s: Side, duration: number) => LoadSpec): Promise<Side> {
  const sides: Side[] = [side]
  for (let i = 1; i < settings.processes && side.another; i++) sides.push({ ...side, url: await side.another() })
  let best = side
  let bestRps = -1
  for (const [i, s] of sides.entries()) {
    await load(spec(s, settings.warmup), s)
    if (sides.length === 1) break
    const r = await load(spec(s, settings.warmup), s)
    console.log(`    ${side.label}: process ${i + 1} of ${sides.length} ${r.rps.toFixed(1)} req/s after its warm-up`)
    if (r.rps > bestRps) {
      best = s
      bestRps = r.rps
    }
  }
  return best
}

export async function compareHttp (baseline: Side, candidate: Side, opts: { pipelining?: readonly number[], duration?: number } = {}): Promise<Record<string, ConfigFigures>> {
  const out: Record<string, ConfigFigures> = {}
  const c = settings.connections
  const duration = opts.duration ?? settings.duration
  for (const p of opts.pipelining ?? PIPELINING) {
    console.log(`  -c ${c} -p ${p}`)
    const spec = ({ drainRequests: _drains, ...s }: Side, duration: number): LoadSpec => ({ ...s, connections: c, pipelining: p, duration })
    // one warm-up per scenario (and the choice of process): the second configuration runs on warm processes
    if (settings.warmup > 0 && p === (opts.pipelining ?? PIPELINING)[0]) {
      baseline = await fastestProcess(baseline, spec)
      candidate = await fastestProcess(candidate, spec)
    }
    const b: LoadResult[] = []
    const k: LoadResult[] = []
    for (let i = 0; i < settings.rounds; i++) {
      const rb = await load(spec(baseline, duration), baseline)
      printRow(`round ${i + 1} baseline`, rb)
      b.push(rb)
      const rk = await load(spec(candidate, duration), candidate)
      printRow(`round ${i + 1} candidate`, rk)
      k.push(rk)
    }
    const fb = figures(b)
    const fk = figures(k)
    const ratio = fb.rps > 0 ? round(fk.rps / fb.rps) : 0
    printRow(`baseline: ${baseline.label}`.slice(0, 28), fb)
    printRow(`candidate: ${candidate.label}`.slice(0, 28), fk)
    console.log(`    ratio ${ratio.toFixed(3)}`)
    out[`c${c}-p${p}`] = { connections: c, pipelining: p, baseline: fb, candidate: fk, ratio }
  }
  return out
}

/** the shape results files use for an HTTP comparison */
export function httpResultParts (figs: Record<string, ConfigFigures>, baselineLabel: string, candidateLabel: string) {
  const pick = (side: 'baseline' | 'candidate', label: string) => ({
    label,
    ...Object.fromEntries(Object.entries(figs).map(([k, f]) => [k, { rps: f[side].rps, p50: f[side].p50, p99: f[side].p99, errors: f[side].errors, roundsRps: f[side].rounds.map((r) => round(r.rps, 1)) }]))
  })
  const ratios = Object.fromEntries(Object.entries(figs).map(([k, f]) => [k, f.ratio]))
  const ratio = Math.min(...Object.values(ratios))
  const errors = Object.values(figs).reduce((a, f) => a + f.candidate.errors, 0)
  return { baseline: pick('baseline', baselineLabel), candidate: pick('candidate', candidateLabel), ratios, ratio, candidateErrors: errors }
}
