// npm run soak -- --chaos [--minutes N]: the chaos run (docs/reliability.md, Chaos run). Two web
// instances and a worker on a fresh PostgreSQL database with Redis (each through the run's proxy),
// the mixed workload for N minutes (15 by default) while faults come on a schedule, then a drain
// (until every report, delivery and alert has ended, at most DRAIN_S), then the books. Exit code 1
// when an invariant fails. Writes bench/results/chaos.json.
import { startHarness } from '../lib/harness.ts'
import { machineStart, writeResultFile } from '../lib/results.ts'
import { settings } from '../lib/settings.ts'
import { checkBooks, printBooks } from './books.ts'
import { newCallLog } from './client.ts'
import { startCluster } from './cluster.ts'
import { FAULT_ORDER, runFaults, type FaultRecord } from './faults.ts'
import { startReceiver } from './receiver.ts'
import { newLedger, newUser, probe, runWorkload, type Probe, type WorkloadContext } from './workload.ts'

/** seconds the drain may take after the workload: a killed worker's job expires after 20 s, deliveries retry over 90 s */
const DRAIN_S = 240

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function minutesArg (argv: string[]): number {
  const i = argv.indexOf('--minutes')
  if (i < 0) return 15
  const n = Number(argv[i + 1])
  if (!Number.isFinite(n) || n < 1) throw new Error(`--minutes wants a number of at least 1, got ${JSON.stringify(argv[i + 1])}`)
  return n
}

export async function runChaos (argv: string[]): Promise<number> {
  const minutes = minutesArg(argv)
  const h = startHarness()
  const machine = machineStart()
  let exitCode = 1
  try {
    console.log(`chaos: ${minutes} min of workload with faults; ${settings.cores} cores, load average ${machine().loadAverage.start}; scratch ${h.run.dir}`)
    const cluster = await startCluster(h.run, { redisUrl: settings.redisUrl, adminUrl: settings.adminUrl })
    h.defer(cluster.stop)
    const receiver = await startReceiver()
    h.defer(receiver.close)
    const log = newCallLog()
    const ledger = newLedger()
    let running = true
    let settled = false
    const ctx: WorkloadContext = { webs: cluster.webs, log, ledger, receiverUrl: receiver.url, sql: cluster.sql, running: () => running && !h.interrupted() }
    const profiles = await cluster.sql<Array<{ source: string, username: string }>>`
      select source, username from profiles where lower(username) = 'alex.rivera' order by source`
    for (let i = 0; i < 4; i++) await newUser(ctx)
    console.log(`  ${cluster.webs.map((w) => `${w.name} ${w.url}`).join(', ')}, worker; database ${cluster.db.name} via :${cluster.pgProxy.port}, Redis via :${cluster.redisProxy.port}; ${ledger.users.length} accounts`)

    const start = Date.now()
    const durationMs = minutes * 60_000
    const everyS = Math.min(25, Math.max(10, minutes * 60 / 12))
    const faults: FaultRecord[] = []
    console.log(`  faults every ${everyS} s after the last one ended, in turn: ${FAULT_ORDER.join(', ')}`)
    const workload = runWorkload(ctx, { profiles, importsAt: [start + durationMs * 0.35, start + durationMs * 0.7], settled: () => settled || h.interrupted() })
    await runFaults(cluster, { everyS, until: start + durationMs - 10_000, running: ctx.running }, faults)
    while (ctx.running() && Date.now() < start + durationMs) await sleep(500)
    running = false
    console.log(`  workload stopped after ${((Date.now() - start) / 1000).toFixed(0)} s; draining`)

    const drainUntil = Date.now() + DRAIN_S * 1000
    for (;;) {
      const [db] = await cluster.sql<Array<{ open: number, deliveries: number, alerts: number }>>`
        select (select count(*)::int from reports where status in ('queued', 'generating')) as open,
               (select count(*)::int from webhook_deliveries where status = 'pending') as deliveries,
               (select count(*)::int from alert_pending) as alerts`
      const unread = [...ledger.accepted].filter((id) => !ledger.final.has(id)).length
      const done = ledger.toGenerate.size === 0 && unread === 0 && db.open === 0 && db.deliveries === 0 && db.alerts === 0
      if (done || Date.now() > drainUntil || h.interrupted()) {
        console.log(`  drain ${done ? 'complete' : 'gave up'}: ${ledger.toGenerate.size} reports never answered 202, ${unread} not seen ended, ` +
          `${db.open} queued or generating, ${db.deliveries} deliveries pending, ${db.alerts} profiles pending alerts`)
        break
      }
      await sleep(2000)
    }
    settled = true
    await workload
    const finalProbes: Probe[] = []
    for (const r of ledger.revocations) finalProbes.push(...await probe(ctx, r))

    const faultCounts: Record<string, number> = {}
    for (const f of faults) faultCounts[f.kind] = (faultCounts[f.kind] ?? 0) + 1
    console.log(`  faults survived: ${Object.entries(faultCounts).map(([k, n]) => `${k} x${n}`).join(', ')}`)
    console.log(`  answers by status: ${JSON.stringify(log.byStatus)}; no answer ${log.noAnswer}; workload ${JSON.stringify(ledger.counts)}`)
    const invariants = await checkBooks({ cluster, ledger, received: receiver.received, log, faults, finalProbes })
    printBooks(invariants)
    const met = invariants.every((i) => i.holds)
    exitCode = met ? 0 : 1
    await h.cleanUp()
    const file = writeResultFile('chaos', {
      scenario: 'chaos', met, minutes, faults: faultCounts, faultLog: faults, invariants,
      answers: { byStatus: log.byStatus, noAnswer: log.noAnswer }, workload: ledger.counts,
      measuredAt: new Date().toISOString(), machine: machine()
    })
    console.log(`  => ${met ? 'every invariant holds' : 'AN INVARIANT FAILS'}; load average ${machine().loadAverage.start} -> ${machine().loadAverage.end}; ${file}`)
  } catch (err) {
    await h.cleanUp()
    console.error(`  FAILED: ${(err as Error).stack ?? err}`)
  }
  h.finish()
  return exitCode
}
