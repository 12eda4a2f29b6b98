// 10. Staff search at a million accounts: GET /admin/users?q=<a part of an address> (ILIKE '%q%' on
// the pg_trgm index users_email_trgm_idx) against GET /admin/users?email=<the whole address> (the
// unique btree index on users.email), the same route, handler and answer, in the same run.
//
// BENCH_ADMIN_SEARCH_ACCOUNTS (1,000,000) accounts, made by one INSERT ... SELECT from
// generate_series, then ANALYZE. The reader is an `admin:read` API key of an admin (a key reads
// /admin without a session at level 2; the staff check reads its owner's role at each call, as it
// does for a person). Each connection cycles through its own 20 addresses: the candidate searches a
// 9-character middle part of each (it matches that account alone), the baseline asks for the whole
// address. Rate limits raised (the bench's default): what is measured is the search.
// Figures: docs/benchmarks.md, Staff search.
import postgres from 'postgres'
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import type { Scenario } from '../lib/scenario.ts'
import { API, apiKey, signedInUser } from '../lib/seed.ts'
import { settings } from '../lib/settings.ts'
import { anotherService, databaseFor, serviceFor } from '../lib/setup.ts'

/** the search's p99 at most this many times the exact lookup's */
const P99_TIMES = 3
const PER_CONNECTION = 20

export const adminSearch: Scenario = {
  name: 'admin-search',
  number: 10,
  title: 'GET /admin/users?q= (a part of an address, trigram index) at a million accounts',
  async run (ctx) {
    const n = settings.adminSearchAccounts
    const db = await databaseFor(ctx, 'admin_search')
    const opts = { name: 'service', databaseUrl: db.url }
    const app = await serviceFor(ctx, opts)
    const admin = await signedInUser(app)
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    ctx.defer(async () => { await sql.end({ timeout: 5 }) })
    await sql`update users set role = 'admin' where email = ${admin.email}`
    const key = await apiKey(app, admin, ['admin:read'])

    const t0 = performance.now()
    // addresses of people: a name-like part, a number, a random-looking part, a few domains
    await sql`insert into users (email, confirmed_at, created_at)
      select 'person' || i || '.' || substr(md5(i::text), 1, 12) || '@' || (array['example.com', 'mail.example', 'corp.example.org'])[1 + i % 3],
        now() - make_interval(secs => i), now() - make_interval(secs => i)
      from generate_series(1, ${n}::int) as i`
    await sql`analyze users`
    console.log(`  ${n} accounts inserted and analyzed in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

    const picked = await sql<Array<{ email: string }>>`select email from users where email like 'person%'
      order by md5(email) limit ${settings.connections * PER_CONNECTION}`
    const headers = { authorization: `Bearer ${key}` }
    // the md5 part's middle: one account's, nobody else's
    const part = (email: string) => email.slice(email.indexOf('.') + 2, email.indexOf('.') + 11)
    const sets = (path: (email: string) => string) => Array.from({ length: settings.connections }, (_, c) =>
      picked.filter((_, i) => i % settings.connections === c).map((r) => ({ headers, path: path(r.email) })))
    const search = sets((email) => `${API}/admin/users?q=${encodeURIComponent(part(email))}`)
    const exact = sets((email) => `${API}/admin/users?email=${encodeURIComponent(email)}`)

    // each search finds its one account (and the key reads): checked once before measuring
    const check = await fetch(`${app.url}${search[0][0].path}`, { headers })
    const body = await check.json() as { total?: number }
    if (check.status !== 200 || body.total !== 1) throw new Error(`the search answered ${check.status} ${JSON.stringify(body)}`)

    const figs = await compareHttp(
      { label: 'exact address (btree)', url: `${app.url}${API}/admin/users`, requestSets: exact, another: anotherService(ctx, opts, `${API}/admin/users`) },
      { label: 'part of address (trigram)', url: `${app.url}${API}/admin/users`, requestSets: search, another: anotherService(ctx, opts, `${API}/admin/users`) },
      { pipelining: [1] }
    )
    const parts = httpResultParts(figs, 'GET /admin/users?email=<address> (unique btree index)', `GET /admin/users?q=<9 characters of the address> (trigram index), ${n} accounts`)
    const f = Object.values(figs)[0]
    const p99Ratio = f.baseline.p99 > 0 ? f.candidate.p99 / f.baseline.p99 : 0
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      accounts: n,
      p50: { search: f.candidate.p50, exact: f.baseline.p50 },
      p99: { search: f.candidate.p99, exact: f.baseline.p99, ratio: Number(p99Ratio.toFixed(2)) },
      target: { metric: 'p99 of the search / p99 of the exact lookup at -c 100 -p 1', text: `<= ${P99_TIMES} (a part of an address as fast to find as a whole one, give or take)` },
      met: p99Ratio <= P99_TIMES && parts.candidateErrors === 0,
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
