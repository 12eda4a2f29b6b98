// 3. POST /auth/signin against argon2.verify alone (a bare Fastify route verifying the same kind of
// hash with the same parameters), same concurrency, same libuv threadpool. Target >= 0.85 at
// -c 100 -p 1 and -p 10; p99 printed.
//
// As a login storm looks from outside: each connection is its own client (X-Forwarded-For from a
// trusted proxy, TRUST_PROXY=127.0.0.1) and cycles through its own accounts, so that no account has
// two sign-ins in flight (the per-account backoff claims each attempt) and each stays under its
// per-e-mail limit. Only the per-IP sign-in limit is raised (a client signs in about once a second);
// the per-e-mail limit and the global budget keep their defaults.
import { perClient, seedAccounts } from '../lib/accounts.ts'
import { compareHttp, httpResultParts, runsPerSide, type Side } from '../lib/compare.ts'
import { startScriptEnv } from '../lib/service.ts'
import { settings } from '../lib/settings.ts'
import { API, PASSWORD } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherBare, anotherService, bareFor, databaseFor, serviceFor } from '../lib/setup.ts'

const TARGET = 0.85

/** the limits of the measured service: the defaults of schemas/env.ts, the per-IP sign-in limit raised */
const LIMITS = {
  RATE_LIMIT_SIGNIN_EMAIL: '10',
  RATE_LIMIT_SIGNIN_IP: '6000',
  RATE_LIMIT_AUTH_FAILURES_IP: '60',
  RATE_LIMIT_GLOBAL: '6000'
}

export const signin: Scenario = {
  name: 'signin',
  number: 3,
  title: 'POST /auth/signin',
  async run (ctx) {
    const db = await databaseFor(ctx, 'signin')
    // accounts are made on a seeder with every limit raised (bench/lib/accounts.ts), each then given a
    // hash with the measured service's argon2 parameters
    // and one more account per drain of each side (bench/lib/compare.ts, drain): a drain must queue
    // behind the run's hashes, so it signs in an account the runs never use, from an address of its
    // own; a reused account would pass its per-e-mail limit and be answered 429 at once
    const drainCount = 2 * runsPerSide()
    const seeded = (await seedAccounts(ctx, db, settings.signinAccounts + drainCount, { label: 'signin', serviceHash: true })).map((a) => a.email)
    const emails = seeded.slice(0, settings.signinAccounts)
    const drainRequests = seeded.slice(settings.signinAccounts).map((email, i) => ({
      headers: { 'x-forwarded-for': `198.19.${i >> 8}.${(i & 255) + 1}` },
      body: JSON.stringify({ email, password: PASSWORD })
    }))
    if (emails.length < settings.connections * 10) console.log(`    (only ${emails.length} accounts: at -p 10 a connection has the same account in flight twice)`)

    const opts = {
      name: 'service',
      databaseUrl: db.url,
      env: { TRUST_PROXY: '127.0.0.1', ...LIMITS },
      nodeFlags: settings.signinProbe ? ['--import', './bench/lib/signin-probe.ts'] : []
    }
    const app = await serviceFor(ctx, opts)
    // The service gets the thread pool `npm start` gives it (bench/lib/service.ts, startScriptEnv);
    // the bare side libuv's default of 4 unless this environment sets UV_THREADPOOL_SIZE: each runs
    // four hashes at once, the service with one more thread free for its other work.
    const bare = await bareFor(ctx, { BENCH_PASSWORD: PASSWORD })
    const sets = perClient(emails, settings.connections, (email) => ({ body: JSON.stringify({ email, password: PASSWORD }) }))
    const json = { 'content-type': 'application/json' }
    // 1,000 argon2 hashes in flight (-p 10) take far longer than autocannon's default 10 s timeout
    const timeout = 120
    // at a few dozen sign-ins per second, 1,000 queued requests need more than a 5 s round to show a rate
    const duration = Math.max(settings.duration, 15)

    const baseline: Side = {
      label: 'argon2.verify alone',
      url: `${bare.url}/argon2`,
      method: 'POST',
      headers: json,
      requestSets: sets,
      timeout,
      another: anotherBare(ctx, '/argon2', { BENCH_PASSWORD: PASSWORD }),
      drainRequests
    }
    const candidate: Side = {
      label: 'POST /auth/signin',
      url: `${app.url}${API}/auth/signin`,
      method: 'POST',
      headers: json,
      requestSets: sets,
      timeout,
      another: anotherService(ctx, opts, `${API}/auth/signin`),
      drainRequests
    }
    const figs = await compareHttp(baseline, candidate, { duration })
    const parts = httpResultParts(figs, 'bare Fastify POST /argon2: argon2.verify(hash, password), argon2id m=19456 t=2 p=1', 'POST /api/v1/auth/signin (valid e-mail and password)')
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      accounts: emails.length,
      clients: `${settings.connections} connections, each its own X-Forwarded-For address and its own accounts`,
      limits: LIMITS,
      threadpool: { service: startScriptEnv().UV_THREADPOOL_SIZE ?? '4 (libuv default)', bare: process.env.UV_THREADPOOL_SIZE ?? '4 (libuv default)' },
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10', text: `>= ${TARGET.toFixed(2)}; p99 printed` },
      met: parts.ratio >= TARGET && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, logLevel: settings.logLevel }
    }
  }
}
