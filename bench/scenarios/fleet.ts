// 12. Fleet: 1, 2, 4 and 8 instances of the service on this machine (BENCH_FLEET_INSTANCES), with
// the NOTIFY transport and with Redis (EVENTS_URL), each instance holding the streams of reports of
// its own (BENCH_FLEET_REPORTS x BENCH_FLEET_STREAMS) and getting BENCH_FLEET_RATE events a second
// for them, so that the load per instance stays the same as instances are added. Counted: every
// event on every stream of its report (asserted), publish-to-receive latency, and each instance's
// CPU per event it delivered (/proc, bench/lib/fleet.ts), with the database's and the Redis
// server's CPU per event beside it. With NOTIFY every instance hears every event, so its work per
// event should grow with the instances; with the broker it hears only its own, so it should not
// (docs/decisions/reports-and-streams.md, Events through a broker): at the most instances, a window with events for the
// first instance's reports alone measures what the others spend on an event they hold no stream of.
// The instances reach the database through a private PgBouncer (bench/lib/pooler.ts), as eight
// instances should.
// Eight instances, the database, Redis, the publisher and the client share two cores here: the
// figures show how the cost per event grows, not what it is on a machine per instance.
import postgres from 'postgres'
import { databaseMeter, type DatabaseMeter } from '../lib/cpu.ts'
import { poolerFor } from '../lib/pooler.ts'
import { createFleet, createPublisher, idleWindow, localRedisPid, runWindow, windowLine, type Fleet, type Publisher, type WindowFigures } from '../lib/fleet.ts'
import { mean, median, round } from '../lib/results.ts'
import { settings } from '../lib/settings.ts'
import { signedInUser } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { databaseFor, serviceFor } from '../lib/setup.ts'
import { draftReport, importStreamProfile, SseClient } from '../lib/streams.ts'

/** with the broker an instance should spend next to nothing on an event for another instance's streams: at most this share of what NOTIFY costs it */
const SPARED = 0.25
/** server connections the run holds besides one LISTEN per instance: the pooler's (.ci/pgbouncer: 10 a database), the publisher's, the meter's, and room for other people's */
const CONNECTIONS_BESIDES = 40
/** the events of the overheard window, in units of BENCH_FLEET_RATE, all for the first instance's reports */
const OVERHEARD_RATE = 8
/** ms between the last counted window and the idle one */
const SETTLE_MS = 3000


interface Step { instances: number, window: WindowFigures, cpuMsPerEvent: number }

/** what an instance spends on an event of a report it holds no stream of, beside its idle CPU */
interface Overheard {
  rate: number
  events: number
  /** CPU per event, less the same instance's CPU over as long idle, the median over the instances that hold none of the reports (ms) */
  cpuMsPerEvent: number
  idleCpuMsPerSecond: number
  /** the instance that holds them, CPU per event (ms) */
  holderCpuMsPerEvent: number
  /** the database's backends, less their idle CPU, per event (ms): the writer's, the holder's reads, and NOTIFY to every listener */
  databaseCpuMsPerEvent: number
  deliveredAll: boolean
}

/** at the most instances: a window idle, then one with events for instance 1's reports alone */
async function overhear (client: SseClient, f: Fleet, publisher: Publisher, o: { meter: DatabaseMeter, redisPid?: number }): Promise<Overheard> {
  // the last window's garbage collected before the idle one, which it would otherwise fall into
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const idle = await idleWindow(f, settings.fleetSeconds, o.meter)
  const rate = settings.fleetRate * OVERHEARD_RATE
  const w = await runWindow(client, f, publisher, { rate, seconds: settings.fleetSeconds, streamsPerReport: settings.fleetStreams, meter: o.meter, redisPid: o.redisPid, only: [f.instances[0]] })
  // the median over the others: an instance's queue maintenance (every QUEUE_MAINTENANCE_S) falls into one window and not the other
  const others = w.instances.slice(1).map((i, k) => (i.cpuMs - idle.cpuMs[k + 1]) / w.events)
  const idleDb = idle.database?.backendCpu ?? 0
  return {
    rate,
    events: w.events,
    cpuMsPerEvent: round(median(others), 4),
    idleCpuMsPerSecond: round(median(idle.cpuMs.slice(1)) / settings.fleetSeconds, 2),
    holderCpuMsPerEvent: w.instances[0].cpuMsPerEvent,
    databaseCpuMsPerEvent: round((w.database!.backendCpuMsPerEvent * w.events - idleDb * 1000) / w.events, 4),
    deliveredAll: w.deliveredAll
  }
}


export const fleet: Scenario = {
  name: 'fleet',
  number: 12,
  title: 'Fleet: 1-8 instances, NOTIFY and Redis, every event to every stream, CPU per event as instances grow',
  async run (ctx) {
    const db = await databaseFor(ctx, 'fleet')
    await importStreamProfile(db.url, ctx.run.dir)
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url, env: { SSE_MAX_STREAMS_PER_USER: '100000' } })
    const user = await signedInUser(app)
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    ctx.defer(async () => { await sql.end({ timeout: 5 }) })
    const [room] = await sql<Array<{ free: number }>>`select current_setting('max_connections')::int - (select count(*) from pg_stat_activity)::int as free`
    const fits = room.free - CONNECTIONS_BESIDES
    const counts = [...settings.fleetInstances].sort((a, b) => a - b).filter((n) => n <= fits)
    if (counts.length < settings.fleetInstances.length) console.log(`  only ${room.free} connections free on the server: instance counts above ${fits} left out`)
    if (counts.length === 0) throw new Error(`${room.free} connections free on the server: not enough for one instance`)
    const most = counts[counts.length - 1]
    const reports: string[] = []
    for (let i = 0; i < most * settings.fleetReports; i++) reports.push(await draftReport(app, user))
    await app.stop()
    // eight instances' pools of 10 and more would take most of a server's 100 connections: the
    // instances share a pooler's few, as the scale-out section says to run them
    const pooled = poolerFor(ctx, db.url)

    console.log(`  ${settings.cores} cores shared by every instance, the database, Redis, the publisher and the client: the figures show how the cost per event grows with the instances, not its size on a machine per instance`)
    const client = new SseClient(most * settings.fleetReports * settings.fleetStreams + 2048)
    ctx.defer(() => client.stop())
    const meter = databaseMeter(sql, db.name)
    const byTransport: Record<string, Step[]> = {}
    const overheard: Record<string, Overheard> = {}
    for (const transport of settings.transports) {
      console.log(`  ${transport}: ${counts.join(', ')} instances, ${settings.fleetReports} reports x ${settings.fleetStreams} streams each, ${settings.fleetRate} events/s per instance for ${settings.fleetSeconds} s`)
      const f = createFleet(ctx, client, { kind: 'service', transport, databaseUrl: db.url, redisUrl: settings.redisUrl, user, reports, reportsPerInstance: settings.fleetReports, streamsPerReport: settings.fleetStreams, env: pooled })
      const publisher = await createPublisher({ databaseUrl: db.url, transport, redisUrl: settings.redisUrl, connections: 4 })
      const redisPid = transport === 'redis' ? await localRedisPid(settings.redisUrl) : undefined
      const steps: Step[] = []
      try {
        for (const n of counts) {
          await f.grow(n)
          const rate = settings.fleetRate * n
          // new instances' paths compiled before the counted window
          await runWindow(client, f, publisher, { rate, seconds: 1, streamsPerReport: settings.fleetStreams })
          const window = await runWindow(client, f, publisher, { rate, seconds: settings.fleetSeconds, streamsPerReport: settings.fleetStreams, meter, redisPid })
          const cpuMsPerEvent = round(mean(window.instances.map((i) => i.cpuMsPerEvent)), 3)
          steps.push({ instances: n, window, cpuMsPerEvent })
          console.log(`    ${n} instance${n > 1 ? 's' : ''}: ${windowLine(window)}; mean ${cpuMsPerEvent} ms`)
        }
        if (most > 1) {
          overheard[transport] = await overhear(client, f, publisher, { meter, redisPid })
          const o = overheard[transport]
          console.log(`    events of instance 1's reports alone, ${o.rate}/s: the ${most - 1} others ${o.cpuMsPerEvent} ms of CPU per event each (idle ${o.idleCpuMsPerSecond} ms a second), ` +
            `the holder ${o.holderCpuMsPerEvent} ms; database backends ${o.databaseCpuMsPerEvent} ms per event; delivered ${o.deliveredAll ? 'all' : 'NOT all'}`)
        }
      } finally {
        await publisher.close()
        await f.stop()
      }
      byTransport[transport] = steps
    }

    const growth = Object.fromEntries(Object.entries(byTransport).map(([t, steps]) => [t, round(steps[steps.length - 1].cpuMsPerEvent / steps[0].cpuMsPerEvent)]))
    for (const [t, g] of Object.entries(growth)) console.log(`  ${t}: CPU per event at ${most} instances / at ${counts[0]}: ${g}`)
    // what the broker spares an instance, per event of a report it holds no stream of, as a share of what NOTIFY costs it
    const spared = overheard.notify && overheard.redis ? round(overheard.redis.cpuMsPerEvent / overheard.notify.cpuMsPerEvent) : undefined
    if (spared !== undefined) console.log(`  an event for another instance's streams: Redis ${overheard.redis.cpuMsPerEvent} ms, NOTIFY ${overheard.notify.cpuMsPerEvent} ms of an instance's CPU: ${spared}`)
    const checks = {
      deliveredAll: Object.values(byTransport).every((steps) => steps.every((s) => s.window.deliveredAll)) && Object.values(overheard).every((o) => o.deliveredAll),
      ...(spared !== undefined ? { brokerSpares: spared <= SPARED } : {})
    }
    const table = (steps: Step[]) => steps.map((s) => ({
      instances: s.instances,
      events: s.window.events,
      delivered: `${s.window.delivered}/${s.window.expected}`,
      cpuMsPerEvent: s.cpuMsPerEvent,
      cpuMsPerEventByInstance: s.window.instances.map((i) => i.cpuMsPerEvent),
      databaseBackendCpuMsPerEvent: s.window.database?.backendCpuMsPerEvent,
      databaseConnections: s.window.database?.connections,
      redisCpuMsPerEvent: s.window.redisCpuMsPerEvent,
      p50: s.window.p50,
      p99: s.window.p99
    }))
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      baseline: { label: `NOTIFY: an instance's CPU per event of a report it holds no stream of, at ${most} instances; and each transport at ${counts[0]} instance${counts[0] > 1 ? 's' : ''}`, overheard: overheard.notify, ...Object.fromEntries(Object.entries(byTransport).map(([t, steps]) => [t, steps[0]])) },
      candidate: { label: `Redis: the same; and each transport at ${most} instances`, overheard: overheard.redis, ...Object.fromEntries(Object.entries(byTransport).map(([t, steps]) => [t, steps[steps.length - 1]])) },
      growth,
      overheard,
      ratio: spared ?? growth.redis ?? growth.notify,
      table: Object.fromEntries(Object.entries(byTransport).map(([t, steps]) => [t, table(steps)])),
      windows: byTransport,
      target: {
        metric: `an instance's CPU per event of a report it holds no stream of (less its idle CPU), Redis / NOTIFY, at ${most} instances; the growth of CPU per delivered event from ${counts[0]} to ${most} instances, printed; every event on every stream`,
        text: `Redis / NOTIFY <= ${SPARED}; every event delivered to every stream of its report`
      },
      met: Object.values(checks).every(Boolean),
      checks,
      notes: [
        `each instance: the service as npm start runs it, WORKERS=0, through a PgBouncer in transaction mode (.ci/pgbouncer; DATABASE_PREPARE=off, LISTEN direct), ${settings.fleetReports} reports x ${settings.fleetStreams} streams of its own, ${settings.fleetRate} events/s for its reports; a 1 s window before each counted one`,
        'CPU per event: the instance process\'s CPU over the window (/proc/<pid>/task/*/schedstat) / the events of its reports; it includes what the instance does besides (timers, heartbeats), the same at every count',
        `overheard: at ${most} instances, ${settings.fleetSeconds} s idle, then ${settings.fleetSeconds} s of ${settings.fleetRate * OVERHEARD_RATE} events/s for the first instance's reports alone; the others' CPU less their idle CPU, per event, the median over them`,
        'on two shared cores this is the shape of the cost as instances are added, not its size on a machine per instance'
      ],
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { instances: counts, ratePerInstance: settings.fleetRate, seconds: settings.fleetSeconds, reportsPerInstance: settings.fleetReports, streamsPerReport: settings.fleetStreams, transports: settings.transports, redisUrl: settings.redisUrl }
    }
  }
}
