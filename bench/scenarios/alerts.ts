// 9. Alerts in bulk: one import that touches BENCH_ALERTS_PROFILES (10,000) watched profiles raises
// every alert within 60 s, computed in batches by the alert worker of the service process (WORKERS=1,
// as `npm start` runs it: the same process serves the reads), while GET /report/{id} and
// GET /auth/info keep their latency. Baseline: the same reads at the same rate with no import running,
// measured in the same run (a window before the import; a window after it is printed as a check).
//
// Seed (bench/data/alerts-input.ts): 10,000 profiles whose data ends in month M (last month),
// imported with `npm run import`; 2,000 users, each signed in, with 5 ready reports of one profile
// each and a watch on each (WATCH_MAX without a subscription), written straight into the database
// (bench/lib/watched-reports.ts) with the watch's seen month M. The import: 10,000 follows in month
// M + 1 (this month), one per profile, each bringing interests the profile never had, sent as POST
// /ingest (BENCH_ALERTS_IMPORT=cli: `npm run import` beside the service). Expected: exactly one alert per
// watch, checked against the engine (bench/lib/alert-check.ts).
//
// The reads run at a fixed rate (BENCH_ALERTS_READ_RATE per endpoint, 200 req/s), each connection
// its own client address and its own users: a service answering as fast as it can would give its
// CPU to the reads and starve the worker, and latency at saturation measures the queue, not the
// service. Every rate limit is raised, so that the warm-up, which runs at full speed to put every
// report in the service's cache, is never refused. Figures and findings: docs/benchmarks.md, Alerts in bulk.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { toMonth, formatMonth } from '../../src/engine/index.ts'
import { writeAlertsInput } from '../data/alerts-input.ts'
import { perClient, seedAccounts } from '../lib/accounts.ts'
import { checkAlerts } from '../lib/alert-check.ts'
import { runLoad, startLoad, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { request } from '../lib/processes.ts'
import { round } from '../lib/results.ts'
import type { Scenario } from '../lib/scenario.ts'
import { API, importOrFail, runImport } from '../lib/seed.ts'
import { settings } from '../lib/settings.ts'
import { databaseFor, serviceFor } from '../lib/setup.ts'
import { insertWatchedReports } from '../lib/watched-reports.ts'
import { printRow } from '../lib/compare.ts'

/** seconds from the import's start to its last alert */
const SECONDS = 60
/** p50 and p99 of each read during the import, at most this many times their quiet figures */
const LATENCY = 2
/** how often the alerts are counted */
const POLL_MS = 100

type Reads = Record<'report' | 'authInfo', LoadResult>
const READS = { report: 'GET /report/{id}', authInfo: 'GET /auth/info' } as const

const seconds = (from: number) => (performance.now() - from) / 1000

export const alerts: Scenario = {
  name: 'alerts',
  number: 9,
  title: 'one import touching 10,000 watched profiles: time to the last alert, read latency during it',
  async run (ctx) {
    // a multiple of 5: every profile's friends are on its own source
    const n = settings.alertsProfiles - (settings.alertsProfiles % 5)
    const perUser = settings.alertsPerUser
    const thisMonth = toMonth(new Date())
    const t0 = performance.now()
    const db = await databaseFor(ctx, 'alerts')
    const input = await writeAlertsInput(ctx.run.dir, n, thisMonth - 1)
    const seeded = await importOrFail(db.url, input.seedFile, join(ctx.run.dir, 'data'))
    console.log(`  seed: ${input.seedLines} lines (${n} profiles with data up to ${formatMonth(input.month)}) imported in ${(seeded.ms / 1000).toFixed(1)} s`)
    const users = await seedAccounts(ctx, db, Math.ceil(n / perUser), { label: 'alerts', signIn: true })
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    ctx.defer(async () => { await sql.end({ timeout: 5 }) })
    const ids = new Map((await sql<Array<{ id: string, email: string }>>`select id, email from users where email = any(${users.map((u) => u.email)})`).map((r) => [r.email, r.id]))
    const tokenOf = new Map(users.map((u) => [ids.get(u.email)!, u.token]))
    const t1 = performance.now()
    const watched = await insertWatchedReports(sql, input, users.map((u) => ids.get(u.email)!), perUser, thisMonth)
    // nothing pending from the seed: the import below is the only work of the alert worker
    await sql`delete from alert_pending`
    console.log(`  ${watched.length} ready reports and watches (${perUser} per user) written in ${seconds(t1).toFixed(1)} s; set-up ${seconds(t0).toFixed(1)} s`)

    const ingestToken = randomBytes(24).toString('base64url')
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url, workers: 1, env: { TRUST_PROXY: '127.0.0.1', INGEST_TOKEN: ingestToken } })
    // (no connection without requests of its own on a small run)
    const c = Math.min(settings.connections, users.length)
    // each user reads the first of its reports: 2,000 bodies of about 9 KB, all in the service's report
    // cache (64 MiB) as in scenario 2, where 10,000 would not fit and every read would go to the database
    const read = watched.filter((w) => w.profile % perUser === 0)
    const specs: Record<keyof Reads, LoadSpec> = {
      report: {
        url: `${app.url}${API}/report/${read[0].reportId}`,
        requestSets: perClient(read, c, (w) => ({ path: `${API}/report/${w.reportId}`, headers: { authorization: `Bearer ${tokenOf.get(w.userId)}` } })),
        connections: c,
        pipelining: 1,
        duration: settings.alertsQuiet
      },
      authInfo: {
        url: `${app.url}${API}/auth/info`,
        requestSets: perClient(users, c, (u) => ({ headers: { authorization: `Bearer ${u.token}` } })),
        connections: c,
        pipelining: 1,
        duration: settings.alertsQuiet
      }
    }
    const rate = settings.alertsReadRate || undefined
    const both = async (label: string): Promise<Reads> => {
      const [report, authInfo] = await Promise.all([runLoad({ ...specs.report, rate }), runLoad({ ...specs.authInfo, rate })])
      for (const k of ['report', 'authInfo'] as const) printRow(`${label} ${READS[k]}`, { report, authInfo }[k])
      return { report, authInfo }
    }

    // warm-up at full speed, one read after the other: every report read into the service's cache
    const warm = Math.max(3, settings.warmup)
    for (const k of ['report', 'authInfo'] as const) {
      const r = await runLoad({ ...specs[k], duration: warm })
      console.log(`  warm-up ${READS[k]}: ${r.total} requests in ${warm} s, errors ${r.errors}`)
    }
    console.log(`  reads at ${rate ?? 'full speed'}${rate ? ' req/s each' : ''}, -c ${c} each, both at once`)
    const quiet = await both('quiet')

    // the import, and the same reads from its start to its last alert
    const running = { report: startLoad({ ...specs.report, rate, duration: settings.alertsTimeout }), authInfo: startLoad({ ...specs.authInfo, rate, duration: settings.alertsTimeout }) }
    await Promise.all([running.report.started, running.authInfo.started])
    const start = performance.now()
    const imported = settings.alertsImport === 'cli'
      ? runImport(db.url, input.importFile, join(ctx.run.dir, 'data')).then((r) => { if (r.exitCode !== 0) throw new Error(`import failed: ${r.output.slice(0, 2000)}`) })
      : request(`${app.url}${API}/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ingestToken}`, 'content-type': 'application/x-ndjson' },
        body: readFileSync(input.importFile, 'utf8'),
        timeoutMs: settings.alertsTimeout * 1000
      }).then((r) => { if (r.status !== 200) throw new Error(`POST /ingest: ${r.status} ${r.body.slice(0, 2000)}`) })
    let importSeconds = NaN
    let importError: Error | undefined
    imported.then(() => { importSeconds = seconds(start) }, (err: Error) => { importError = err })
    const trace: Array<[number, number]> = []
    let raised = 0
    let last = NaN
    while (seconds(start) < settings.alertsTimeout && !importError) {
      raised = Number((await sql<Array<{ n: number }>>`select count(*)::int as n from alerts`)[0].n)
      const at = seconds(start)
      if (trace.length === 0 || at - trace[trace.length - 1][0] >= 1 || raised >= n) trace.push([round(at, 1), raised])
      if (raised >= n) { last = at; break }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
    running.report.stop()
    running.authInfo.stop()
    const during: Reads = { report: await running.report.result, authInfo: await running.authInfo.result }
    await imported.catch(() => {})
    if (importError) throw importError
    for (const k of ['report', 'authInfo'] as const) printRow(`import ${READS[k]}`, during[k])
    console.log(`  ${settings.alertsImport === 'cli' ? 'npm run import' : 'POST /ingest'} of ${input.importLines} follows done in ${importSeconds.toFixed(1)} s; alerts ${raised} of ${n}, the last ${Number.isNaN(last) ? `not within ${settings.alertsTimeout} s` : `${last.toFixed(1)} s after the import started`}`)
    console.log(`  alerts over time (s, count): ${trace.map(([t, k]) => `${t}:${k}`).join(' ')}`)
    const after = await both('after')

    const check = await checkAlerts(sql, input, watched, thisMonth)
    const pending = Number((await sql<Array<{ n: number }>>`select count(*)::int as n from alert_pending`)[0].n)
    console.log(`  alerts exact: ${check.exact} of ${check.expected} watches (${check.raised} raised); pending rows left ${pending}${check.differences.length ? `; e.g. ${check.differences.join('; ')}` : ''}`)

    const ratio = (k: keyof Reads, f: 'p50' | 'p99' | 'rps') => quiet[k][f] > 0 ? round(during[k][f] / quiet[k][f]) : Infinity
    const ratios = Object.fromEntries((['report', 'authInfo'] as const).map((k) => [k, { p50: ratio(k, 'p50'), p99: ratio(k, 'p99'), rps: ratio(k, 'rps') }]))
    const worst = Math.max(...Object.values(ratios).flatMap((r) => [r.p50, r.p99]))
    const errors = during.report.errors + during.authInfo.errors
    console.log(`    latency during / quiet: ${(['report', 'authInfo'] as const).map((k) => `${READS[k]} p50 ${ratios[k].p50} p99 ${ratios[k].p99}`).join(', ')}`)
    const checks = {
      lastAlertWithin60s: last < SECONDS,
      everyAlertExact: check.exact === n && check.raised === n,
      latencyKept: worst <= LATENCY,
      noReadErrors: errors === 0,
      nothingPending: pending === 0
    }
    const figs = (r: Reads) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { rps: round(v.total / v.seconds, 1), p50: v.p50, p99: v.p99, errors: v.errors, seconds: v.seconds }]))
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      baseline: { label: `${READS.report} and ${READS.authInfo} at once, no import running (${settings.alertsQuiet} s before it)`, ...figs(quiet) },
      candidate: { label: 'the same reads from the import\'s start to its last alert (the run stops within about a second of it)', ...figs(during) },
      after: { label: `the same reads once every alert was raised (${settings.alertsQuiet} s)`, ...figs(after) },
      ratios,
      ratio: worst,
      alerts: { expected: n, raised: check.raised, exact: check.exact, lastAlertSeconds: Number.isNaN(last) ? null : round(last, 1), importAnsweredSeconds: round(importSeconds, 1), trace, differences: check.differences },
      target: { metric: 'seconds from the import\'s start to its last alert; read p50 and p99 during it / with no import', text: `last alert < ${SECONDS} s; p50, p99 <= ${LATENCY} x quiet` },
      met: Object.values(checks).every(Boolean),
      checks,
      notes: [
        `${n} watched profiles, ${users.length} users with ${perUser} watches each; import by ${settings.alertsImport === 'cli' ? 'npm run import' : 'POST /ingest'}; one service process, WORKERS=1`,
        'ratio: the largest of p50 and p99 during / quiet over both reads; rps: answers / seconds of the window'
      ],
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: {
        profiles: n,
        perUser,
        readRate: rate ?? 'full speed',
        connections: c,
        quietSeconds: settings.alertsQuiet,
        import: settings.alertsImport,
        alertBatchProfiles: settings.alertBatchProfiles
      }
    }
  }
}
