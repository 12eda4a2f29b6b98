// 7. Report generation in the pure engine (src/engine), in-process, on generated data: a subject
// with 10,000 follows and 200 friends of 1,000 follows each, against the same at a tenth of the
// size. Targets: engine time <= 300 ms at full size; full / tenth <= 11 (linear).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { computeReport, type ReportInput } from '../../src/engine/index.ts'
import { engineInput, FULL, TENTH } from '../data/engine-input.ts'
import { round } from '../lib/results.ts'
import { settings } from '../lib/settings.ts'
import type { Scenario } from '../lib/scenario.ts'

const MAX_MS = 300
const MAX_RATIO = 11
const WARMUP_RUNS = 5

// This process was not started with --expose-gc; the flag still works when set before the first use.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * Every timed run starts from the same heap: everything collected, the sweeping done. Otherwise the
 * young-generation collections land on whichever run fills the nursery: a full-size run (7 MB of
 * allocation) paid for collections that copy its large live set (40-130 ms each, --trace-gc, on the
 * loaded machine), a tenth-size run (0.7 MB) mostly for none. From a collected heap neither size
 * collects during its run (--trace-gc), so the ratio compares the engine's work alone.
 */
async function settle (): Promise<void> {
  gc()
  await sleep(20)
}

/**
 * one report computation; a fresh Dataset object each time, so the per-dataset index is built as in
 * the service. Wall time is the target's figure; CPU time (this process, all threads) is printed
 * beside it because on a shared, oversubscribed machine the wall time mostly measures the queue.
 */
function timeOnce (input: ReportInput): { wall: number, cpu: number } {
  const fresh: ReportInput = { ...input, dataset: { ...input.dataset } }
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const results = computeReport(fresh)
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  if (results.length !== 1) throw new Error('the engine computed no report')
  return { wall, cpu: (c.user + c.system) / 1000 }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

export const engine: Scenario = {
  name: 'engine',
  number: 7,
  title: 'report generation: subject with 10,000 follows, 200 friends of 1,000 follows each',
  async run (ctx) {
    const full = engineInput(FULL)
    const tenth = engineInput(TENTH)
    const follows = (i: ReportInput) => i.profiles[0].profile.follows.length + i.profiles[0].friends.reduce((a, f) => a + f.follows.length, 0)
    console.log(`  full: ${follows(full)} follows, ${full.dataset.accounts.length} accounts; tenth: ${follows(tenth)} follows, ${tenth.dataset.accounts.length} accounts`)
    // warm-up: the same number of runs of both sizes, so that the JIT has seen both alike
    for (let i = 0; i < WARMUP_RUNS; i++) { timeOnce(tenth); timeOnce(full) }

    let session: Session | undefined
    if (settings.cpuProfDir) {
      session = new Session()
      session.connect()
      await session.post('Profiler.enable')
      await session.post('Profiler.start')
    }
    const tRuns: Array<{ wall: number, cpu: number }> = []
    const fRuns: Array<{ wall: number, cpu: number }> = []
    for (let i = 0; i < settings.engineRuns; i++) {
      await settle()
      tRuns.push(timeOnce(tenth))
      await settle()
      fRuns.push(timeOnce(full))
    }
    const t = tRuns.map((r) => r.wall)
    const f = fRuns.map((r) => r.wall)
    const tenthCpu = round(median(tRuns.map((r) => r.cpu)), 2)
    const fullCpu = round(median(fRuns.map((r) => r.cpu)), 2)
    if (session) {
      const { profile } = await session.post('Profiler.stop')
      const file = join(settings.cpuProfDir, `engine-${process.pid}.cpuprofile`)
      writeFileSync(file, JSON.stringify(profile))
      session.disconnect()
      console.log(`  profile: ${file}`)
    }
    const tenthMs = round(median(t), 2)
    const fullMs = round(median(f), 2)
    const ratio = round(fullMs / tenthMs)
    console.log(`    tenth  median ${tenthMs.toFixed(2)} ms (CPU ${tenthCpu.toFixed(1)} ms)  runs ${t.map((x) => x.toFixed(1)).join(' ')}`)
    console.log(`    full   median ${fullMs.toFixed(2)} ms (CPU ${fullCpu.toFixed(1)} ms)  runs ${f.map((x) => x.toFixed(1)).join(' ')}`)
    console.log(`    full / tenth ${ratio.toFixed(3)} (CPU ${(fullCpu / tenthCpu).toFixed(3)})`)
    const checks = { fullWithin300ms: fullMs <= MAX_MS, linear: ratio <= MAX_RATIO }
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'none',
      baseline: { label: 'the same at 1/10 the size: 1,000 follows, 20 friends of 1,000 follows (21,000 follows)', medianMs: tenthMs, medianCpuMs: tenthCpu, runsMs: t.map((x) => round(x, 2)) },
      candidate: { label: '10,000 follows, 200 friends of 1,000 follows (210,000 follows)', medianMs: fullMs, medianCpuMs: fullCpu, runsMs: f.map((x) => round(x, 2)) },
      ratio,
      target: { metric: 'engine time (computeReport, in-process), median', text: `full <= ${MAX_MS} ms; full / tenth <= ${MAX_RATIO} (linear)` },
      cpuRatio: round(fullCpu / tenthCpu),
      met: checks.fullWithin300ms && checks.linear,
      checks,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      notes: ['each timed run starts from a collected heap (a full GC, then 20 ms for the sweeper): neither size pays for the other\'s garbage, and neither collects during its run'],
      settings: { runs: settings.engineRuns, warmupRuns: WARMUP_RUNS }
    }
  }
}
