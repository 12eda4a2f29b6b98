// 1. GET /auth/info with a Bearer JWT against a bare Fastify {hello:'world'} route. Target >= 0.60.
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API, signedInUser } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherBare, anotherService, databaseFor, serviceFor, bareFor } from '../lib/setup.ts'

const TARGET = 0.6

export const authInfo: Scenario = {
  name: 'auth-info',
  number: 1,
  title: 'GET /auth/info with a Bearer JWT',
  async run (ctx) {
    const db = await databaseFor(ctx, 'auth_info')
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url })
    const bare = await bareFor(ctx)
    const user = await signedInUser(app)

    const figs = await compareHttp(
      { label: 'bare Fastify {hello:world}', url: `${bare.url}/hello`, another: anotherBare(ctx, '/hello') },
      {
        label: 'GET /auth/info (Bearer)',
        url: `${app.url}${API}/auth/info`,
        headers: { authorization: `Bearer ${user.token}` },
        another: anotherService(ctx, { name: 'service', databaseUrl: db.url }, `${API}/auth/info`)
      }
    )
    const parts = httpResultParts(figs, 'bare Fastify GET /hello -> {hello:"world"}', 'GET /api/v1/auth/info with a Bearer JWT')
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)} (@fastify/jwt alone is 0.68-0.78 of bare)` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
