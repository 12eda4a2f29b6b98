// 11. Capacity: the measured ceilings docs/capacity.md builds its model on, each beside a baseline
// measured in the same run.
// - Per core: session checks (GET /auth/info, Bearer), sign-ins, refreshes, each in requests per
//   CPU-second of the service process against a bare Fastify route's (argon2.verify alone for
//   sign-ins), rounds interleaved (bench/lib/core-rate.ts); report generations per CPU-second of
//   one `npm run worker` against the engine alone on the same input (bench/lib/generations.ts).
// - Per database: the same runs' work on PostgreSQL per sign-in, refresh and generation (backends'
//   CPU, write transactions), against the simplest write transaction (bench/lib/commit-floor.ts).
// - Per instance: open streams within BENCH_CAPACITY_MEMORY_MIB (512) of RSS, extrapolated from a
//   few thousand (bench/lib/stream-memory.ts), against the raw node:http SSE server.
// - Per transport: events a second over BENCH_CAPACITY_INSTANCES instances before p99 delivery
//   passes 200 ms, NOTIFY and Redis, against the raw SSE server fed by the same transport
//   (bench/lib/fleet.ts).
// Not a pass/fail benchmark: `met` says every figure was measured cleanly (no errors, every event on
// every stream, no other database of the server busy while writes were counted); the ratios say
// what part of a bare core, database core or transport the service keeps.
import { join } from 'node:path'
import postgres from 'postgres'
import { perClient, seedAccounts } from '../lib/accounts.ts'
import { commitFloor } from '../lib/commit-floor.ts'
import { compareCores, type CoreSide } from '../lib/core-rate.ts'
import { databaseMeter, type DatabaseMeter } from '../lib/cpu.ts'
import { createFleet, createPublisher, localRedisPid, ramp, type RampFigures, type TransportName } from '../lib/fleet.ts'
import { engineRate, generationRate } from '../lib/generations.ts'
import { MiB } from '../lib/memory.ts'
import { peakRssOf, request, startChild, type Child } from '../lib/processes.ts'
import { round } from '../lib/results.ts'
import { settings } from '../lib/settings.ts'
import { API, importOrFail, PASSWORD, signedInUser, writeDemoData, type SignedIn } from '../lib/seed.ts'
import { startScriptFlags } from '../lib/service.ts'
import type { Scenario, ScenarioContext } from '../lib/scenario.ts'
import { bareFor, databaseFor, serviceFor } from '../lib/setup.ts'
import { streamsWithin } from '../lib/stream-memory.ts'
import { draftReport, importStreamProfile, SseClient } from '../lib/streams.ts'

const P99_MS = 200
/** connections of the simplest write transaction */
const FLOOR_CLIENTS = 16
const FLOOR_SECONDS = 3
const WARMUP_STREAMS = 500

/** one request more, answered once those before it are (bench/lib/core-rate.ts) */
async function drain (child: Child, path: string, init: { method?: string, headers?: Record<string, string>, body?: string }) {
  const res = await request(`${child.url}${path}`, { ...init, timeoutMs: 300_000 })
  if (res.status >= 300) console.log(`    (${path}: the drain was answered ${res.status})`)
}

export const capacity: Scenario = {
  name: 'capacity',
  number: 11,
  title: 'Capacity: per core, per database, streams per instance, events per transport',
  async run (ctx) {
    const db = await databaseFor(ctx, 'capacity')
    const demo = await writeDemoData(ctx.run.dir)
    await importOrFail(db.url, demo.file, join(ctx.run.dir, 'data'))
    await importStreamProfile(db.url, ctx.run.dir)
    const accounts = await seedAccounts(ctx, db, settings.spreadAccounts, { label: 'capacity', signIn: true, serviceHash: true })
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    ctx.defer(async () => { await sql.end({ timeout: 5 }) })
    const meter = databaseMeter(sql, db.name)
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url, env: { TRUST_PROXY: '127.0.0.1', SIGNUP_FREE_REPORTS: '1000', SSE_MAX_STREAMS_PER_USER: '100000' } })
    const bare = await bareFor(ctx, { BENCH_PASSWORD: PASSWORD })
    console.log(`  ${settings.cores} cores shared by the servers, the load client, the database and the publisher: per-core and per-event figures carry to a larger machine better than rates a second, and the ceilings a second here are this machine's`)
    const json = { 'content-type': 'application/json' }
    const pid = (c: Child) => c.proc.pid!

    // per core, and per database for what writes
    const cores: Record<string, Awaited<ReturnType<typeof compareCores>>> = {}
    const bearer = perClient(accounts, settings.connections, (a) => ({ headers: { authorization: `Bearer ${a.token}` } }))
    const cookies = perClient(accounts, settings.connections, (a) => ({ headers: { cookie: a.cookie } }))
    const signins = perClient(accounts, settings.connections, (a) => ({ body: JSON.stringify({ email: a.email, password: PASSWORD }) }))
    const first = accounts[0]
    const kinds: Array<[string, CoreSide, CoreSide]> = [
      ['sessionChecks',
        { label: 'bare GET /hello', pid: pid(bare), spec: { url: `${bare.url}/hello`, connections: settings.connections, pipelining: 1, requestSets: bearer }, drain: () => drain(bare, '/hello', {}) },
        { label: 'GET /auth/info', pid: pid(app), database: meter, spec: { url: `${app.url}${API}/auth/info`, connections: settings.connections, pipelining: 1, requestSets: bearer }, drain: () => drain(app, `${API}/auth/info`, { headers: { authorization: `Bearer ${first.token}` } }) }],
      ['signins',
        { label: 'argon2.verify alone', pid: pid(bare), spec: { url: `${bare.url}/argon2`, method: 'POST', headers: json, connections: settings.connections, pipelining: 1, requestSets: signins, timeout: 120 }, drain: () => drain(bare, '/argon2', { method: 'POST', body: JSON.stringify({ password: PASSWORD }) }) },
        { label: 'POST /auth/signin', pid: pid(app), database: meter, spec: { url: `${app.url}${API}/auth/signin`, method: 'POST', headers: json, connections: settings.connections, pipelining: 1, requestSets: signins, timeout: 120 }, drain: () => drain(app, `${API}/auth/signin`, { method: 'POST', body: JSON.stringify({ email: first.email, password: PASSWORD }) }) }],
      ['refreshes',
        { label: 'bare POST /hello', pid: pid(bare), spec: { url: `${bare.url}/hello`, method: 'POST', connections: settings.connections, pipelining: 1, requestSets: cookies }, drain: () => drain(bare, '/hello', { method: 'POST' }) },
        { label: 'POST /auth/token/refresh', pid: pid(app), database: meter, spec: { url: `${app.url}${API}/auth/token/refresh`, method: 'POST', connections: settings.connections, pipelining: 1, requestSets: cookies }, drain: () => drain(app, `${API}/auth/token/refresh`, { method: 'POST', headers: { cookie: first.cookie } }) }]
    ]
    for (const [key, baseline, candidate] of kinds) {
      console.log(`  per core: ${candidate.label} against ${baseline.label}, -c ${settings.connections} -p 1`)
      cores[key] = await compareCores(baseline, candidate)
    }

    console.log(`  per database: the simplest write transaction, ${FLOOR_CLIENTS} connections, ${FLOOR_SECONDS} s`)
    const floor = await commitFloor(db.url, meter, { clients: FLOOR_CLIENTS, seconds: FLOOR_SECONDS })
    console.log(`    ${floor.perSecond} commits/s; ${floor.perBackendCore} per backend CPU-second (${floor.backendCpuMsPerCommit} ms each, background ${floor.backgroundCpuMsPerCommit} ms)`)

    console.log(`  report generations: ${settings.capacityReports} of a 5-profile report through one worker (${settings.capacityWorkers} jobs at once), against the engine alone`)
    const owner = await signedInUser(app)
    const generations = await generationRate(ctx, { app, user: owner, databaseUrl: db.url, database: db.name, profiles: demo.reportProfiles, count: settings.capacityReports, workers: settings.capacityWorkers })
    const [one] = await sql<Array<{ profiles: Array<{ profileId: string }> }>>`select profiles from reports where user_id = (select id from users where email = ${owner.email}) and status = 'ready' limit 1`
    const engine = await engineRate(db.url, one.profiles.map((p) => p.profileId), meter)
    console.log(`    worker: ${generations.perCore} per CPU-second (${generations.workerCpuMs} ms each; ${generations.perSecond}/s on this machine; web ${generations.webCpuMs} ms each); ` +
      `database ${generations.database.backendCpuMs} ms backend CPU and ${generations.database.writes} writes each; engine alone ${engine.perCore} per CPU-second (${engine.msPerRun} ms); its input\'s load ${engine.load.cpuMs} ms here and ${engine.load.databaseCpuMs} ms in the database`)

    // per instance: streams within the memory budget, each server fresh, with npm start's V8 flags;
    // beside it, what the instance that served every request above has reached without a stream
    const busyPeakMiB = round(peakRssOf(pid(app)) / MiB, 1)
    const budgetCounts = settings.capacityStreams
    const client = new SseClient(Math.max(...budgetCounts) + 2048)
    ctx.defer(() => client.stop())
    const streamsUser = await signedInUser(app)
    const reportId = await draftReport(app, streamsUser)
    const auth = { authorization: `Bearer ${streamsUser.token}` }
    console.log(`  per instance: RSS per stream at 0, ${budgetCounts.join(', ')} streams, extrapolated to ${settings.capacityMemoryMiB} MiB`)
    const raw = await startChild({ name: 'raw-sse', script: 'bench/servers/raw-sse.ts', logDir: ctx.run.logDir, readyPath: '/health', env: {}, nodeFlags: startScriptFlags() })
    ctx.defer(raw.stop)
    const baselineMemory = await streamsWithin(client, { label: 'raw node:http', child: raw, url: `${raw.url}/sse/${reportId}`, headers: auth }, budgetCounts, settings.capacityMemoryMiB, WARMUP_STREAMS)
    await raw.stop()
    const fresh = await serviceFor(ctx, { name: 'service-streams', databaseUrl: db.url, env: { SSE_MAX_STREAMS_PER_USER: '100000' } })
    const candidateMemory = await streamsWithin(client, { label: 'GET /sse/{id}', child: fresh, url: `${fresh.url}${API}/sse/${reportId}`, headers: auth }, budgetCounts, settings.capacityMemoryMiB, WARMUP_STREAMS)
    await fresh.stop()
    const memory = {
      baseline: baselineMemory,
      candidate: { ...candidateMemory, busyPeakMiB, busyStreams: Math.max(0, Math.floor((settings.capacityMemoryMiB - busyPeakMiB) * 1024 / candidateMemory.perStreamKiB)) }
    }
    for (const m of [memory.baseline, memory.candidate]) {
      console.log(`    ${m.label}: ${m.perStreamKiB} KiB a stream, ${m.fixedMiB} MiB before any (its peak RSS so far): ${m.streams} streams in ${m.budgetMiB} MiB`)
    }
    console.log(`    the service after this run's requests: peak RSS ${busyPeakMiB} MiB without a stream, room for ${memory.candidate.busyStreams} streams`)

    // per transport: events a second before p99 passes 200 ms, on N instances
    const n = settings.capacityInstances
    const reports: string[] = []
    for (let i = 0; i < n * settings.fleetReports; i++) reports.push(await draftReport(app, streamsUser))
    const transports: Record<string, { baseline: RampFigures, candidate: RampFigures, ratio: number }> = {}
    for (const transport of settings.transports) {
      const sides: Record<'raw' | 'service', RampFigures> = {} as never
      for (const kind of ['raw', 'service'] as const) {
        console.log(`  per transport: ${transport}, ${n} ${kind === 'raw' ? 'raw SSE servers' : 'service instances'}, ${settings.fleetReports} reports x ${settings.fleetStreams} streams each, rates ${settings.capacityRates.join(', ')}/s for ${settings.capacityStepSeconds} s`)
        sides[kind] = await transportCeiling(ctx, client, { kind, transport, databaseUrl: db.url, user: streamsUser, reports, instances: n, meter, redisPid: transport === 'redis' ? await localRedisPid(settings.redisUrl) : undefined })
        console.log(`    ceiling ${sides[kind].ceiling}/s${sides[kind].limit ? ` (at ${sides[kind].limit})` : ''}`)
      }
      transports[transport] = { baseline: sides.raw, candidate: sides.service, ratio: round(sides.service.ceiling / Math.max(1, sides.raw.ceiling)) }
    }

    // per database core: operations per CPU-second of the backends, and the commits (write transactions)
    // they make; an operation that writes less than once in ten (a refresh: its session row is kept in
    // memory) has no commit rate worth the name, and no ratio
    const perDatabase = Object.fromEntries(([
      ['signins', cores.signins.candidate.database!],
      ['refreshes', cores.refreshes.candidate.database!],
      ['generations', generations.database]
    ] as const).map(([k, d]) => [k, { ...d, commitsPerBackendCore: round(d.perBackendCore * d.writes, 1), ratio: d.writes >= 0.1 ? round(d.perBackendCore * d.writes / floor.perBackendCore) : null }]))
    console.log(`  per database core (the simplest commit ${floor.perBackendCore}/s): ` + Object.entries(perDatabase).map(([k, d]) => `${k} ${d.perBackendCore}/s, ${d.writes} commits each${d.ratio === null ? '' : `, ${d.commitsPerBackendCore} commits/s`}`).join('; '))
    const ratios = {
      sessionChecks: cores.sessionChecks.ratio,
      signins: cores.signins.ratio,
      refreshes: cores.refreshes.ratio,
      generations: round(generations.perCore / engine.perCore),
      ...Object.fromEntries(Object.entries(perDatabase).filter(([, d]) => d.ratio !== null).map(([k, d]) => [`database-${k}`, d.ratio])),
      streams: round(memory.candidate.streams / memory.baseline.streams),
      ...Object.fromEntries(Object.entries(transports).map(([t, f]) => [`events-${t}`, f.ratio]))
    }
    const checks = {
      noErrors: Object.values(cores).every((c) => c.candidate.errors === 0 && c.baseline.errors === 0),
      generationsReady: generations.failed === 0,
      // the write counts are the server's: another database's writes in a window would be counted with ours
      databaseAlone: [cores.signins, cores.refreshes, cores.sessionChecks].every((c) => c.candidate.database?.othersActive === 0) && generations.database.othersActive === 0 && floor.othersActive === 0,
      everyEventDelivered: Object.values(transports).every((t) => [t.baseline, t.candidate].every((s) => s.steps.slice(0, -1).every((w) => w.deliveredAll)))
    }
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      baseline: {
        label: 'per core: bare Fastify routes (argon2.verify alone for sign-ins), the engine alone for generations; per database: the simplest write transaction; per instance and transport: the raw node:http SSE server',
        perCore: { sessionChecks: cores.sessionChecks.baseline, signins: cores.signins.baseline, refreshes: cores.refreshes.baseline, generations: engine },
        perDatabase: floor,
        perInstance: memory.baseline,
        perTransport: Object.fromEntries(Object.entries(transports).map(([t, f]) => [t, f.baseline]))
      },
      candidate: {
        label: 'the service: requests per CPU-second of its process, generations per CPU-second of one worker, its work on PostgreSQL per operation, streams within the budget, events before p99 passes 200 ms',
        perCore: { sessionChecks: cores.sessionChecks.candidate, signins: cores.signins.candidate, refreshes: cores.refreshes.candidate, generations },
        perDatabase: { ...perDatabase, sessionChecks: cores.sessionChecks.candidate.database },
        perInstance: memory.candidate,
        perTransport: Object.fromEntries(Object.entries(transports).map(([t, f]) => [t, f.candidate]))
      },
      ratios,
      ratio: Math.min(ratios.sessionChecks, ratios.signins, ratios.refreshes, ratios.generations),
      target: {
        metric: 'ceilings, each beside its baseline; ratio: the lowest per-core ratio (service / bare, per CPU-second); ratios.database-*: commits per database core / the simplest commit\'s',
        text: 'none (docs/capacity.md); met: every figure measured without errors, every event on every stream below the ceiling'
      },
      met: Object.values(checks).every(Boolean),
      checks,
      notes: [
        'per core: requests per CPU-second of the server process (/proc/<pid>/stat, all its threads: argon2 runs on the thread pool), every request autocannon sent counted, a drain request after each round',
        'per database: CPU of the scenario database\'s backends and of PostgreSQL\'s background processes over the same rounds; writes are transaction ids taken (transactions that wrote, server-wide: checks.databaseAlone says whether another database ran anything meanwhile)',
        'per instance: the peak RSS before the first stream (VmHWM; each server fresh, with npm start\'s V8 flags) plus RSS per stream (after compacting collections, a line through 0 and each count), extrapolated to the budget; busyPeakMiB: the peak RSS of the service process that served every request of the run before, busyStreams what the budget leaves it',
        `per transport: ${n} instances, each holding ${settings.fleetReports} reports x ${settings.fleetStreams} streams; a step passes when every event reaches every stream of its report, p99 <= ${P99_MS} ms and the publisher keeps up; the ceiling is the last rate that passed`,
        'everything shares two cores with the load client, the publisher and PostgreSQL: these are the shape of the ceilings, their size on a dedicated core is higher'
      ],
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: {
        duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, accounts: accounts.length,
        reports: settings.capacityReports, workers: settings.capacityWorkers, streams: budgetCounts, memoryMiB: settings.capacityMemoryMiB,
        instances: n, rates: settings.capacityRates, stepSeconds: settings.capacityStepSeconds, reportsPerInstance: settings.fleetReports, streamsPerReport: settings.fleetStreams, transports: settings.transports
      }
    }
  }
}

async function transportCeiling (ctx: ScenarioContext, client: SseClient, o: { kind: 'raw' | 'service', transport: TransportName, databaseUrl: string, user: SignedIn, reports: string[], instances: number, meter: DatabaseMeter, redisPid?: number }): Promise<RampFigures> {
  const fleet = createFleet(ctx, client, { ...o, redisUrl: settings.redisUrl, reportsPerInstance: settings.fleetReports, streamsPerReport: settings.fleetStreams })
  const publisher = await createPublisher({ databaseUrl: o.databaseUrl, transport: o.transport, redisUrl: settings.redisUrl, connections: 8 })
  try {
    await fleet.grow(o.instances)
    return await ramp(client, fleet, publisher, { rates: settings.capacityRates, seconds: settings.capacityStepSeconds, streamsPerReport: settings.fleetStreams, p99Ms: P99_MS, meter: o.meter, redisPid: o.redisPid })
  } finally {
    await publisher.close()
    await fleet.stop()
  }
}
