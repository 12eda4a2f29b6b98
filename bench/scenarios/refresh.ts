// 4. POST /auth/token/refresh (session cookie) against a bare Fastify route. Target >= 0.50.
//
// A realistic spread: BENCH_SPREAD_ACCOUNTS (default 2,000) accounts, each signed in once (2,000
// sessions), shared out over the connections (20 each at -c 100); each connection is its own client
// (X-Forwarded-For from a trusted proxy, TRUST_PROXY=127.0.0.1) and cycles through its own sessions'
// cookies, so no session is refreshed by two clients at once. Only the refresh budget is raised: it
// counts per session (60 a minute by default), and here each session is refreshed several times a
// second. Every other limit keeps the service's default. The baseline gets the same requests.
import { seedAccounts, perClient } from '../lib/accounts.ts'
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { NO_LIMIT } from '../lib/service.ts'
import { anotherBare, anotherService, databaseFor, serviceFor, bareFor } from '../lib/setup.ts'

const TARGET = 0.5

export const refresh: Scenario = {
  name: 'refresh',
  number: 4,
  title: 'POST /auth/token/refresh',
  async run (ctx) {
    const db = await databaseFor(ctx, 'refresh')
    const accounts = await seedAccounts(ctx, db, settings.spreadAccounts, { label: 'refresh', signIn: true })
    const opts = { name: 'service', databaseUrl: db.url, limits: 'defaults' as const, env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_REFRESH: NO_LIMIT } }
    const app = await serviceFor(ctx, opts)
    const bare = await bareFor(ctx)
    const requestSets = perClient(accounts, settings.connections, (a) => ({ headers: { cookie: a.cookie } }))

    const figs = await compareHttp(
      { label: 'bare Fastify POST /hello', url: `${bare.url}/hello`, method: 'POST', requestSets, another: anotherBare(ctx, '/hello') },
      {
        label: 'POST /auth/token/refresh',
        url: `${app.url}${API}/auth/token/refresh`,
        method: 'POST',
        requestSets,
        // the sessions are rows of the database: every process of the service refreshes them
        another: anotherService(ctx, opts, `${API}/auth/token/refresh`)
      }
    )
    const parts = httpResultParts(figs, 'bare Fastify POST /hello -> {hello:"world"}', `POST /api/v1/auth/token/refresh, ${accounts.length} sessions of ${accounts.length} users`)
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      sessions: accounts.length,
      clients: `${settings.connections} connections, each its own X-Forwarded-For address and its own sessions`,
      limits: { RATE_LIMIT_REFRESH: NO_LIMIT },
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)}` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
