// 5. The HTTPS + HTTP/2 listener (TLS=on, HTTP/1.1 by ALPN) against plain HTTP (TLS=off), both the
// service, both serving scenario 1 (GET /auth/info, Bearer) over HTTP/1.1. Target >= 0.70.
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API, signedInUser } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherService, databaseFor, serviceFor } from '../lib/setup.ts'

const TARGET = 0.7

export const tls: Scenario = {
  name: 'tls',
  number: 5,
  title: 'HTTPS+HTTP/2 listener vs plain HTTP, GET /auth/info over HTTP/1.1',
  async run (ctx) {
    const db = await databaseFor(ctx, 'tls')
    // two instances on one database with one JWT secret: the same token works on both
    const plain = await serviceFor(ctx, { name: 'service-http', databaseUrl: db.url })
    const secure = await serviceFor(ctx, { name: 'service-https', databaseUrl: db.url, tls: true })
    const user = await signedInUser(plain)
    const headers = { authorization: `Bearer ${user.token}` }

    const figs = await compareHttp(
      { label: 'plain HTTP (TLS=off)', url: `${plain.url}${API}/auth/info`, headers, another: anotherService(ctx, { name: 'service-http', databaseUrl: db.url }, `${API}/auth/info`) },
      { label: 'HTTPS listener, HTTP/1.1', url: `${secure.url}${API}/auth/info`, headers, another: anotherService(ctx, { name: 'service-https', databaseUrl: db.url, tls: true }, `${API}/auth/info`) }
    )
    const parts = httpResultParts(figs, 'the service with TLS=off ALLOW_HTTP=true, GET /api/v1/auth/info over HTTP', 'the service with TLS=on (HTTPS, HTTP/2 + HTTP/1.1 by ALPN), GET /api/v1/auth/info over HTTPS/1.1')
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
