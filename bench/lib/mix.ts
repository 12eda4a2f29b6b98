// The mixed workload of `npm run load` and `npm run soak` (issue 8): GET /auth/info (Bearer),
// GET /report/{id} of the user's own ready report (Bearer) and POST /auth/token/refresh (session
// cookies), 2 : 2 : 1 by connections, from one autocannon process (bench/clients/mix-load.ts).
import { join } from 'node:path'
import { EnvSchema } from '../../schemas/env.ts'
import { runClient } from './load.ts'
import { freePort, type Child } from './processes.ts'
import type { ScenarioContext } from './scenario.ts'
import { API, importOrFail, readyReport, signedInUser, signIn, writeDemoData, type SignedIn } from './seed.ts'
import { databaseFor, serviceFor } from './setup.ts'

/** users with a token and a ready report each; sessions refreshed round-robin */
const USERS = 20
const SESSIONS = 200
/**
 * The bench sends everything from one address for a few users, so the per-IP and per-user limits
 * are raised (bench/lib/service.ts). The per-session refresh limit keeps its production value:
 * 429s on refresh are the expected ones; a 429 on any other kind is not.
 */
const REFRESH_LIMIT = String(EnvSchema.properties.RATE_LIMIT_REFRESH.default)

export interface MixKind {
  name: string
  method: string
  /** connections of this kind per round of the pattern */
  weight: number
  /** sent round-robin over the kind's connections */
  requests: Array<{ path: string, headers: Record<string, string> }>
  /** 429 is this kind's rate limit answering as it should */
  expects429: boolean
}

/** what bench/clients/mix-load.ts is given */
export interface MixSpec {
  url: string
  kinds: MixKind[]
  connections: number
  duration: number
  timeout: number
  overallRate?: number
}

/** what it answers, per kind */
export interface MixKindResult {
  name: string
  connections: number
  requests: number
  statusCodes: Record<string, number>
  p50: number
  p99: number
  timeouts: number
  connectionErrors: number
  /** connection errors by code (ECONNRESET ...) */
  errorCodes: Record<string, number>
}

export interface Mix {
  app: Child
  metricsUrl: string
  kinds: MixKind[]
  seeded: { users: number, sessions: number, demoLines: number }
}

/** a few at a time: argon2 hashes queue on the server's thread pool either way */
async function inTurn<T> (count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count)
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) { const i = next++; out[i] = await fn(i) }
  }))
  return out
}

/** a fresh database with the demo data, the service on it (metrics on), users, reports and sessions */
export async function startMix (ctx: ScenarioContext, connections: number): Promise<Mix> {
  const db = await databaseFor(ctx, 'load')
  const demo = await writeDemoData(ctx.run.dir)
  await importOrFail(db.url, demo.file, join(ctx.run.dir, 'data'))
  const metricsPort = await freePort()
  const app = await serviceFor(ctx, {
    name: 'service',
    databaseUrl: db.url,
    workers: 1,
    nofile: connections + 1024,
    env: { METRICS_PORT: String(metricsPort), RATE_LIMIT_REFRESH: REFRESH_LIMIT }
  })
  const users: SignedIn[] = await inTurn(USERS, 4, async () => await signedInUser(app))
  const reports = await Promise.all(users.map(async (u) => await readyReport(app, u, demo.reportProfiles)))
  const cookies = await inTurn(SESSIONS, 4, async (i) => (await signIn(app, users[i % USERS].email)).cookie)
  const bearer = (u: SignedIn) => ({ authorization: `Bearer ${u.token}` })
  console.log(`  seeded: ${demo.lines} demo lines, ${USERS} users with a ready report each, ${SESSIONS} sessions`)
  return {
    app,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    kinds: [
      { name: 'info', method: 'GET', weight: 2, expects429: false, requests: users.map((u) => ({ path: `${API}/auth/info`, headers: bearer(u) })) },
      { name: 'report', method: 'GET', weight: 2, expects429: false, requests: users.map((u, i) => ({ path: `${API}/report/${reports[i]}`, headers: bearer(u) })) },
      { name: 'refresh', method: 'POST', weight: 1, expects429: true, requests: cookies.map((cookie) => ({ path: `${API}/auth/token/refresh`, headers: { cookie } })) }
    ],
    seeded: { users: USERS, sessions: SESSIONS, demoLines: demo.lines }
  }
}

export interface KindFigures extends MixKindResult {
  rps: number
  expected429: number
  unexpectedNon2xx: number
}

export interface MixFigures {
  kinds: Record<string, KindFigures>
  total: { requests: number, rps: number, p50: number, p99: number, expected429: number, unexpectedNon2xx: number, timeouts: number, connectionErrors: number }
}

/** the mix for `duration` seconds over `connections`, at most `rate` requests per second when given */
export async function runMix (mix: Mix, opts: { connections: number, duration: number, timeout: number, rate?: number }): Promise<MixFigures> {
  const spec: MixSpec = { url: mix.app.url, kinds: mix.kinds, connections: opts.connections, duration: opts.duration, timeout: opts.timeout, overallRate: opts.rate }
  const r = await runClient<{ kinds: MixKindResult[], total: { requests: number, p50: number, p99: number } }>('bench/clients/mix-load.ts', spec, opts.connections)
  const perSecond = (n: number) => Math.round(n / opts.duration * 10) / 10
  const kinds: Record<string, KindFigures> = {}
  for (const [i, k] of r.kinds.entries()) {
    const non2xx = Object.entries(k.statusCodes).reduce((a, [code, n]) => a + (code.startsWith('2') ? 0 : n), 0)
    const expected429 = mix.kinds[i].expects429 ? (k.statusCodes['429'] ?? 0) : 0
    kinds[k.name] = { ...k, rps: perSecond(k.requests), expected429, unexpectedNon2xx: non2xx - expected429 }
  }
  const sum = (f: (k: KindFigures) => number) => Object.values(kinds).reduce((a, k) => a + f(k), 0)
  return {
    kinds,
    total: {
      ...r.total,
      rps: perSecond(r.total.requests),
      expected429: sum((k) => k.expected429),
      unexpectedNon2xx: sum((k) => k.unexpectedNon2xx),
      timeouts: sum((k) => k.timeouts),
      connectionErrors: sum((k) => k.connectionErrors)
    }
  }
}

export function printMix (m: MixFigures): void {
  const row = (name: string, f: { connections?: number, rps: number, p50: number, p99: number }, rest: string) =>
    console.log(`    ${name.padEnd(8)} ${f.connections !== undefined ? `-c ${String(f.connections).padStart(4)}` : '       '}  ${f.rps.toFixed(1).padStart(8)} req/s  ` +
      `p50 ${String(f.p50).padStart(6)} ms  p99 ${String(f.p99).padStart(6)} ms  ${rest}`)
  for (const [name, f] of Object.entries(m.kinds)) {
    const codes = (o: Record<string, number>) => Object.entries(o).map(([c, n]) => `${c}: ${n}`).join(', ')
    row(name, f, `[${codes(f.statusCodes)}]  timeouts ${f.timeouts}  errors ${f.connectionErrors}${f.connectionErrors ? ` (${codes(f.errorCodes)})` : ''}`)
  }
  const t = m.total
  row('total', t, `${t.requests} answers; unexpected non-2xx ${t.unexpectedNon2xx}, expected 429 ${t.expected429}, timeouts ${t.timeouts}, connection errors ${t.connectionErrors}`)
}
