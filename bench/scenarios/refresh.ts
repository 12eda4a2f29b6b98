// 4. POST /auth/token/refresh (session cookie) against a bare Fastify route. Target >= 0.50.
// Each connection holds its own signed-in session, as many clients would (one session refreshed by
// 100 connections at once would measure a row lock, not the endpoint).
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API, signIn, signUp } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherBare, anotherService, databaseFor, serviceFor, bareFor } from '../lib/setup.ts'

const TARGET = 0.5

export const refresh: Scenario = {
  name: 'refresh',
  number: 4,
  title: 'POST /auth/token/refresh',
  async run (ctx) {
    const db = await databaseFor(ctx, 'refresh')
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url })
    const bare = await bareFor(ctx)
    const email = await signUp(app)
    const cookies: Record<string, string>[] = []
    for (let i = 0; i < settings.connections; i++) cookies.push({ cookie: (await signIn(app, email)).cookie })

    const figs = await compareHttp(
      { label: 'bare Fastify POST /hello', url: `${bare.url}/hello`, method: 'POST', another: anotherBare(ctx, '/hello') },
      {
        label: 'POST /auth/token/refresh',
        url: `${app.url}${API}/auth/token/refresh`,
        method: 'POST',
        headerSets: cookies,
        // the sessions are rows of the database: every process of the service refreshes them
        another: anotherService(ctx, { name: 'service', databaseUrl: db.url }, `${API}/auth/token/refresh`)
      }
    )
    const parts = httpResultParts(figs, 'bare Fastify POST /hello -> {hello:"world"}', `POST /api/v1/auth/token/refresh, ${cookies.length} sessions (one cookie per connection)`)
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)}` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
