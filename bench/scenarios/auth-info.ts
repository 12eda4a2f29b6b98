// 1. GET /auth/info with a Bearer JWT against a bare Fastify {hello:'world'} route. Target >= 0.60.
//
// A realistic spread: BENCH_SPREAD_ACCOUNTS (default 2,000) accounts, each signed in once, shared out
// over the connections (20 each at -c 100); each connection is its own client (X-Forwarded-For from a
// trusted proxy, TRUST_PROXY=127.0.0.1) and cycles through its own accounts' JWTs. Every rate limit
// keeps the service's default: the global budget counts per signed-in user, and one of 2,000 users
// makes a few requests a second at most. The baseline gets the same requests (it ignores the headers).
import { seedAccounts, perClient } from '../lib/accounts.ts'
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherBare, anotherService, databaseFor, serviceFor, bareFor } from '../lib/setup.ts'

const TARGET = 0.6

export const authInfo: Scenario = {
  name: 'auth-info',
  number: 1,
  title: 'GET /auth/info with a Bearer JWT',
  async run (ctx) {
    const db = await databaseFor(ctx, 'auth_info')
    const accounts = await seedAccounts(ctx, db, settings.spreadAccounts, { label: 'auth-info', signIn: true })
    const opts = { name: 'service', databaseUrl: db.url, limits: 'defaults' as const, env: { TRUST_PROXY: '127.0.0.1' } }
    const app = await serviceFor(ctx, opts)
    const bare = await bareFor(ctx)
    const requestSets = perClient(accounts, settings.connections, (a) => ({ headers: { authorization: `Bearer ${a.token}` } }))

    const figs = await compareHttp(
      { label: 'bare Fastify {hello:world}', url: `${bare.url}/hello`, requestSets, another: anotherBare(ctx, '/hello') },
      {
        label: 'GET /auth/info (Bearer)',
        url: `${app.url}${API}/auth/info`,
        requestSets,
        another: anotherService(ctx, opts, `${API}/auth/info`)
      }
    )
    const parts = httpResultParts(figs, 'bare Fastify GET /hello -> {hello:"world"}', `GET /api/v1/auth/info with a Bearer JWT, ${accounts.length} users`)
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      accounts: accounts.length,
      clients: `${settings.connections} connections, each its own X-Forwarded-For address and its own users' JWTs`,
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)} (@fastify/jwt alone is 0.68-0.78 of bare)` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
