// npm run load | npm run soak (issue 8, item 4): the service under a mixed workload (bench/lib/mix.ts)
// from an autocannon process, its memory sampled through its METRICS_PORT exposition and the bench
// probe. Writes bench/results/load.json or soak.json; exits 1 when a criterion fails.
//   load: BENCH_LOAD_CONNECTIONS (1000) for BENCH_LOAD_DURATION (20 s) after a 5 s warm-up; no
//         non-2xx but the expected 429s, no timeouts or connection errors, and the heap after a full
//         collection back within HEAP_RETURN of its level before, once the server has settled.
//   soak: BENCH_SOAK_RATE (150 req/s) over BENCH_SOAK_CONNECTIONS (60) for BENCH_SOAK_DURATION
//         (300 s), the heap after a full collection sampled every BENCH_SOAK_INTERVAL (10 s); the
//         same answers, and a least-squares slope of that heap that grows less than SOAK_GROWTH.
//   soak --chaos [--minutes N]: the chaos run (bench/chaos/run.ts, docs/reliability.md).
import { startHarness } from './lib/harness.ts'
import { linearFit, memoryLine, sampleMemory, sampleWhile, type MemorySample } from './lib/memory.ts'
import { printMix, runMix, startMix, type Mix, type MixFigures } from './lib/mix.ts'
import { machineStart, round, writeResultFile } from './lib/results.ts'
import { settings } from './lib/settings.ts'

/** MiB the live heap may stay above its level before the load (caches, pools, compiled code) */
const HEAP_RETURN = 8
/** MiB the fitted live heap may grow over the whole soak */
const SOAK_GROWTH = 4

const WARMUP = 5
// npm run soak -- --chaos [--minutes N]: the chaos run instead (bench/chaos/run.ts)
if (process.argv.includes('--chaos')) {
  const { runChaos } = await import('./chaos/run.ts')
  process.exit(await runChaos(process.argv))
}
const mode = process.argv.includes('soak') ? 'soak' : 'load'
const h = startHarness()
const machine = machineStart()
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000))

function answersOk (m: MixFigures): Record<string, boolean> {
  return { noUnexpectedNon2xx: m.total.unexpectedNon2xx === 0, noTimeouts: m.total.timeouts === 0, noConnectionErrors: m.total.connectionErrors === 0 }
}

async function load (mix: Mix) {
  const c = settings.loadConnections
  console.log(`  warm-up: -c ${c} for ${WARMUP} s`)
  printMix(await runMix(mix, { connections: c, duration: WARMUP, timeout: settings.loadTimeout }))
  await sleep(settings.settle)
  const t0 = performance.now()
  const before = await sampleMemory(mix.metricsUrl, t0, mix.app)
  console.log(`  load: -c ${c} for ${settings.loadDuration} s`)
  const running = runMix(mix, { connections: c, duration: settings.loadDuration, timeout: settings.loadTimeout })
  const during = await sampleWhile(running, 1, async () => await sampleMemory(mix.metricsUrl, t0))
  const figures = await running
  printMix(figures)
  await sleep(settings.settle)
  const after = await sampleMemory(mix.metricsUrl, t0, mix.app)
  const peak = { rss: Math.max(...during.map((s) => s.rss)), heapUsed: Math.max(...during.map((s) => s.heapUsed)) }
  console.log(memoryLine('before', before))
  console.log(`    during   peak RSS ${peak.rss} MiB, peak heap ${peak.heapUsed} MiB (${during.length} samples)`)
  console.log(memoryLine('after', after))
  // more than the clients received: the answers in flight when the run stopped (one per connection
  // at most), and those to clients that had timed out and gone
  const answered = after.answered - before.answered
  const cpuMs = round((after.cpu - before.cpu) * 1000 / Math.max(1, answered), 2)
  console.log(`    the service answered ${answered} requests (${cpuMs} ms of its CPU each); the clients received ${figures.total.requests}`)
  const heapBack = after.heapAfterGc! - before.heapAfterGc! <= HEAP_RETURN
  return {
    checks: { ...answersOk(figures), heapReturns: heapBack },
    figures,
    service: { answered, cpuMsPerRequest: cpuMs },
    memory: { before, peak, after, during, heapReturnMiB: HEAP_RETURN },
    settings: { connections: c, duration: settings.loadDuration, warmup: WARMUP, settle: settings.settle, timeout: settings.loadTimeout }
  }
}

async function soak (mix: Mix) {
  const opts = { connections: settings.soakConnections, rate: settings.soakRate, timeout: settings.loadTimeout }
  console.log(`  warm-up: ${opts.rate} req/s over -c ${opts.connections} for ${WARMUP * 2} s`)
  printMix(await runMix(mix, { ...opts, duration: WARMUP * 2 }))
  console.log(`  soak: ${opts.rate} req/s over -c ${opts.connections} for ${settings.soakDuration} s, memory every ${settings.soakInterval} s`)
  const running = runMix(mix, { ...opts, duration: settings.soakDuration })
  const samples = await sampleWhile(running, settings.soakInterval, async (t0) => {
    const s = await sampleMemory(mix.metricsUrl, t0, mix.app)
    console.log(memoryLine(`${s.t} s`, s))
    return s
  })
  const figures = await running
  printMix(figures)
  const fit = (y: (s: MemorySample) => number) => round(linearFit(samples.map((s) => s.t / 60), samples.map(y)).slope, 3)
  const slope = { heapAfterGc: fit((s) => s.heapAfterGc!), heapUsed: fit((s) => s.heapUsed), rss: fit((s) => s.rss) }
  const growth = round(slope.heapAfterGc * settings.soakDuration / 60, 2)
  console.log(`    slope (MiB/min): heap after GC ${slope.heapAfterGc}, heap ${slope.heapUsed}, RSS ${slope.rss}; ` +
    `heap after GC grows ${growth} MiB over the soak (allowed ${SOAK_GROWTH})`)
  return {
    checks: { ...answersOk(figures), noHeapGrowth: growth <= SOAK_GROWTH },
    figures,
    memory: { slopeMiBPerMinute: slope, heapGrowthMiB: growth, allowedGrowthMiB: SOAK_GROWTH, samples },
    settings: { ...opts, duration: settings.soakDuration, interval: settings.soakInterval, warmup: WARMUP * 2 }
  }
}

console.log(`${mode}: ${settings.cores} cores, load average ${machine().loadAverage.start}; scratch ${h.run.dir}`)
let met = false
try {
  const connections = mode === 'load' ? settings.loadConnections : settings.soakConnections
  const mix = await startMix({ run: h.run, defer: h.defer, machine }, connections)
  const r = mode === 'load' ? await load(mix) : await soak(mix)
  met = Object.values(r.checks).every(Boolean)
  const failed = Object.entries(r.checks).filter(([, ok]) => !ok).map(([k]) => k)
  await h.cleanUp()
  const file = writeResultFile(mode, { scenario: mode, met, ...r, seeded: mix.seeded, measuredAt: new Date().toISOString(), machine: machine() })
  console.log(`  => ${met ? 'MET' : `NOT MET (${failed.join(', ')})`}; load average ${machine().loadAverage.start} -> ${machine().loadAverage.end}; ${file}`)
} catch (err) {
  await h.cleanUp()
  console.error(`  FAILED: ${(err as Error).stack ?? err}`)
}
h.finish()
process.exit(met ? 0 : 1)
