// npm run bench [-- <scenario> ...]: each scenario against its baseline in the same run, ratios
// printed and written to bench/results/<scenario>.json. Scenarios by name or number; none = all.
// Settings: bench/lib/settings.ts (BENCH_DURATION, BENCH_ROUNDS, BENCH_DATABASE_URL ...).
import { startHarness } from './lib/harness.ts'
import { machineStart, writeResult } from './lib/results.ts'
import type { Scenario } from './lib/scenario.ts'
import { settings } from './lib/settings.ts'
import { authInfo } from './scenarios/auth-info.ts'
import { reportRead } from './scenarios/report.ts'
import { signin } from './scenarios/signin.ts'
import { refresh } from './scenarios/refresh.ts'
import { tls } from './scenarios/tls.ts'
import { sse } from './scenarios/sse.ts'
import { engine } from './scenarios/engine.ts'
import { ingest } from './scenarios/import.ts'
import { alerts } from './scenarios/alerts.ts'
import { adminSearch } from './scenarios/admin-search.ts'
import { capacity } from './scenarios/capacity.ts'
import { fleet } from './scenarios/fleet.ts'

const SCENARIOS: Scenario[] = [authInfo, reportRead, signin, refresh, tls, sse, engine, ingest, alerts, adminSearch, capacity, fleet]

function pick (args: string[]): Scenario[] {
  if (args.length === 0 || args.includes('all')) return SCENARIOS
  return args.map((a) => {
    const s = SCENARIOS.find((x) => x.name === a || String(x.number) === a)
    if (!s) {
      console.error(`unknown scenario ${JSON.stringify(a)}; one of: ${SCENARIOS.map((x) => `${x.number} ${x.name}`).join(', ')}`)
      process.exit(2)
    }
    return s
  })
}

const chosen = pick(process.argv.slice(2).filter((a) => a !== '--'))
const { run, defer, cleanUp, interrupted, finish } = startHarness()
console.log(`benchmark: ${chosen.map((s) => s.name).join(', ')}; ${settings.duration} s rounds x ${settings.rounds}, warm-up ${settings.warmup} s, ` +
  `HTTP scenarios on the fastest of ${settings.processes} server processes per side; ` +
  `${settings.cores} cores; scratch ${run.dir}`)

const summary: Array<{ s: Scenario, ratio?: number, target?: string, met?: boolean, error?: string }> = []
for (const s of chosen) {
  if (interrupted()) break
  console.log(`\n[${s.number}] ${s.name}: ${s.title}`)
  const machine = machineStart()
  try {
    const result = await s.run({ run, machine, defer })
    await cleanUp()
    const file = writeResult(result)
    console.log(`  => ratio ${result.ratio}, target ${result.target.text}: ${result.met ? 'MET' : 'NOT MET'} (load ${result.machine.loadAverage.start} -> ${result.machine.loadAverage.end}); ${file}`)
    summary.push({ s, ratio: result.ratio, target: result.target.text, met: result.met })
  } catch (err) {
    await cleanUp()
    console.error(`  FAILED: ${(err as Error).stack ?? err}`)
    summary.push({ s, error: (err as Error).message })
  }
}

console.log('\nsummary')
for (const r of summary) {
  const what = r.error ? `error: ${r.error}` : `ratio ${r.ratio}  target ${r.target}  ${r.met ? 'met' : 'NOT met'}`
  console.log(`  ${r.s.number} ${r.s.name.padEnd(10)} ${what}`)
}
finish()
process.exit(summary.some((r) => r.error) ? 1 : 0)
