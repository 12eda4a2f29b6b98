// 3. POST /auth/signin against argon2.verify alone (a bare Fastify route verifying the same kind of
// hash with the same parameters), same concurrency, same libuv threadpool. Target >= 0.90; p99 printed.
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { settings } from '../lib/settings.ts'
import { API, PASSWORD, signUp } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { databaseFor, serviceFor, bareFor } from '../lib/setup.ts'

const TARGET = 0.9

export const signin: Scenario = {
  name: 'signin',
  number: 3,
  title: 'POST /auth/signin',
  async run (ctx) {
    const db = await databaseFor(ctx, 'signin')
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url })
    // UV_THREADPOOL_SIZE, if set, reaches both processes alike (both inherit this environment)
    const bare = await bareFor(ctx, { BENCH_PASSWORD: PASSWORD })
    const email = await signUp(app)
    const json = { 'content-type': 'application/json' }
    // 1,000 argon2 hashes in flight (-p 10) take far longer than autocannon's default 10 s timeout
    const timeout = 120
    // at a few dozen sign-ins per second, 1,000 queued requests need more than a 5 s round to show a rate
    const duration = Math.max(settings.duration, 15)

    const figs = await compareHttp(
      { label: 'argon2.verify alone', url: `${bare.url}/argon2`, method: 'POST', headers: json, body: JSON.stringify({ password: PASSWORD }), timeout },
      { label: 'POST /auth/signin', url: `${app.url}${API}/auth/signin`, method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }), timeout },
      { duration }
    )
    const parts = httpResultParts(figs, 'bare Fastify POST /argon2: argon2.verify(hash, password), argon2id m=19456 t=2 p=1', 'POST /api/v1/auth/signin (valid e-mail and password)')
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      threadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (libuv default)',
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)}; p99 printed` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, logLevel: settings.logLevel }
    }
  }
}
