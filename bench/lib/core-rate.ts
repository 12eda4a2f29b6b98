// Requests per core: requests a server answers per second of its own CPU (bench/lib/cpu.ts), so that
// the figure is what one core of a server gives, whatever else the two cores here run (the load
// client, the database, other people's work). Each side is warmed up, then measured in rounds
// interleaved with the other's, as compareHttp interleaves req/s (bench/lib/compare.ts). A round
// counts every request autocannon sent, those in flight at its stop too, and ends with one more
// request that queues behind them (`drain`), so that the CPU they cost falls in the round that sent
// them. With a database meter, the database's work per request is counted over the same window.
import { cpuSeconds, type DatabaseMeter, type DatabaseWork } from './cpu.ts'
import { printRow } from './compare.ts'
import { runLoad, type LoadSpec } from './load.ts'
import { round } from './results.ts'
import { settings } from './settings.ts'

export interface CoreSide {
  label: string
  /** the server process whose CPU is counted */
  pid: number
  spec: Omit<LoadSpec, 'duration'>
  /** one request more, queued behind what the run left in flight; it is counted */
  drain: () => Promise<void>
  database?: DatabaseMeter
}

interface Round { rps: number, p50: number, p99: number, errors: number, requests: number, cpuSeconds: number, database?: DatabaseWork }

export interface CoreFigures {
  label: string
  /** requests per CPU-second of the server process: what one core of it answers a second */
  perCore: number
  rps: number
  p50: number
  p99: number
  errors: number
  requests: number
  cpuSeconds: number
  /** the database's work per request: CPU of its backends and of the server's background processes (ms), write transactions */
  database?: { backendCpuMs: number, backgroundCpuMs: number, writes: number, perBackendCore: number, othersActive: number }
  rounds: Array<Omit<Round, 'database'>>
}

/** the upper median: of two rounds, the worse latency */
const upperMedian = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

async function measure (side: CoreSide, duration: number): Promise<Round> {
  const window = await side.database?.start()
  const cpu0 = cpuSeconds(side.pid)
  const r = await runLoad({ ...side.spec, duration })
  await side.drain()
  const cpu = cpuSeconds(side.pid) - cpu0
  const database = await window?.()
  return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, requests: r.sent + 1, cpuSeconds: cpu, database }
}

function figures (label: string, rounds: Round[]): CoreFigures {
  const requests = rounds.reduce((a, r) => a + r.requests, 0)
  const cpu = rounds.reduce((a, r) => a + r.cpuSeconds, 0)
  const db = rounds.every((r) => r.database) ? rounds.map((r) => r.database!) : undefined
  const sum = (k: 'backendCpu' | 'backgroundCpu' | 'writes') => db!.reduce((a, w) => a + w[k], 0)
  return {
    label,
    perCore: round(requests / cpu, 1),
    rps: round(rounds.reduce((a, r) => a + r.rps, 0) / rounds.length, 1),
    p50: upperMedian(rounds.map((r) => r.p50)),
    p99: upperMedian(rounds.map((r) => r.p99)),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    requests,
    cpuSeconds: round(cpu, 2),
    ...(db
      ? {
          database: {
            backendCpuMs: round(sum('backendCpu') * 1000 / requests, 4),
            backgroundCpuMs: round(sum('backgroundCpu') * 1000 / requests, 4),
            writes: round(sum('writes') / requests, 3),
            perBackendCore: round(requests / Math.max(sum('backendCpu'), 0.01), 1),
            othersActive: Math.max(...db!.map((w) => w.othersActive))
          }
        }
      : {}),
    rounds: rounds.map(({ database: _d, ...r }) => ({ ...r, cpuSeconds: round(r.cpuSeconds, 2) }))
  }
}

/** baseline and candidate per core, rounds interleaved; ratio candidate / baseline */
export async function compareCores (baseline: CoreSide, candidate: CoreSide, duration = settings.duration): Promise<{ baseline: CoreFigures, candidate: CoreFigures, ratio: number }> {
  if (settings.warmup > 0) for (const side of [baseline, candidate]) await measure(side, settings.warmup)
  const rounds: Record<'b' | 'c', Round[]> = { b: [], c: [] }
  for (let i = 0; i < settings.rounds; i++) {
    for (const [key, side] of [['b', baseline], ['c', candidate]] as const) {
      const r = await measure(side, duration)
      rounds[key].push(r)
      printRow(`round ${i + 1} ${key === 'b' ? 'baseline' : 'candidate'}`, r)
      console.log(`      ${(r.requests / r.cpuSeconds).toFixed(1)} requests per CPU-second (${r.requests} requests, ${r.cpuSeconds.toFixed(2)} s CPU)` +
        (r.database ? `; database ${(r.database.backendCpu * 1000 / r.requests).toFixed(3)} ms backend CPU and ${(r.database.writes / r.requests).toFixed(2)} writes a request${r.database.othersActive ? ` (${r.database.othersActive} backends of other databases active: their writes are counted too)` : ''}` : ''))
    }
  }
  const b = figures(baseline.label, rounds.b)
  const c = figures(candidate.label, rounds.c)
  const ratio = round(c.perCore / b.perCore)
  console.log(`    per core: ${b.label} ${b.perCore}/s, ${c.label} ${c.perCore}/s, ratio ${ratio}`)
  return { baseline: b, candidate: c, ratio }
}
