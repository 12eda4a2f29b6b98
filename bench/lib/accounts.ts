// Many accounts, quickly. The accounts of a realistic spread (2,000 and more) come from a seeder: a
// process of the service on the scenario's database whose argon2 parameters are the cheapest the
// service accepts and whose rate limits are all raised. One account is signed up through its API;
// the others are copies of that row under their own e-mails (same password hash), inserted in one
// statement; where a scenario needs sessions, each account is then signed in through the API, a
// millisecond of hashing each instead of tens. The sessions and JWTs are real ones (rows of the
// database, signed with the run's secrets, which every process of the run shares). The seeder stops
// before anything is measured. Where a scenario verifies passwords itself (sign-in), every account
// then gets one hash made here with the measured service's parameters: the same cost per
// verification as a sign-up there would give, one hash made instead of one per account.
import argon2 from 'argon2'
import postgres from 'postgres'
import type { BenchDatabase } from './database.ts'
import { PASSWORD, signIn, signUp, type SignedIn } from './seed.ts'
import type { ScenarioContext } from './scenario.ts'
import { serviceFor } from './setup.ts'

/** HTTP requests of the seeding in flight at once */
const PARALLEL = 32

/** the cheapest argon2 the service accepts (schemas/env.ts): for the seeder only */
const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1', ARGON2_PARALLELISM: '1' }

/** the argon2 parameters the measured service uses: its defaults, or what this environment sets (both inherit it) */
function serviceArgon2 () {
  const env = process.env
  return {
    type: argon2.argon2id as 2,
    memoryCost: Number(env.ARGON2_MEMORY_KIB || 19456),
    timeCost: Number(env.ARGON2_TIME_COST || 2),
    parallelism: Number(env.ARGON2_PARALLELISM || 1)
  }
}

export interface SeedOptions {
  /** e-mails are `${label}-${i}-${pid}@example.com` */
  label: string
  /** sign each account in once (a session and a JWT each) */
  signIn?: boolean
  /** give every account a hash of PASSWORD with the measured service's argon2 parameters */
  serviceHash?: boolean
}

/** job(0) ... job(n - 1), `parallel` at a time */
export async function inParallel (n: number, job: (i: number) => Promise<void>, parallel = PARALLEL): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < n) await job(next++)
  }
  await Promise.all(Array.from({ length: Math.min(parallel, n) }, worker))
}

/**
 * the other n - 1 accounts as copies of the template's row, under their own e-mails: every column
 * but the key and the e-mail taken from it as the schema stands (read from the catalog), so the copy
 * follows the users table of whichever version of the service is measured
 */
async function copyAccount (sql: postgres.Sql, template: string, emails: string[]): Promise<void> {
  const columns = (await sql<Array<{ name: string }>>`
    select column_name as name from information_schema.columns
    where table_schema = current_schema() and table_name = 'users' and column_name not in ('id', 'email')
      and is_generated = 'NEVER' and is_identity = 'NO'`).map((c) => c.name)
  const list = columns.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ')
  await sql.unsafe(`insert into users (email, ${list})
    select e, ${list} from users, unnest($1::text[]) as e where email = $2`, [emails, template])
}

/** n accounts with PASSWORD on db; with signIn, each signed in once (accounts[i].token, .cookie) */
export async function seedAccounts (ctx: ScenarioContext, db: BenchDatabase, n: number, opts: SeedOptions): Promise<SignedIn[]> {
  const t0 = performance.now()
  const emails = Array.from({ length: n }, (_, i) => `${opts.label}-${i}-${process.pid}@example.com`)
  const seeder = await serviceFor(ctx, { name: `seeder-${opts.label}`, databaseUrl: db.url, env: CHEAP_ARGON2 })
  const sql = postgres(db.url, { max: 1, onnotice: () => {} })
  const accounts: SignedIn[] = emails.map((email) => ({ email, token: '', cookie: '' }))
  try {
    // one sign-up through the API, the rest copies of its row
    await signUp(seeder, emails[0])
    await copyAccount(sql, emails[0], emails.slice(1))
    if (opts.signIn) await inParallel(n, async (i) => { accounts[i] = await signIn(seeder, emails[i]) })
    await seeder.stop()
    if (opts.serviceHash) {
      const hash = await argon2.hash(PASSWORD, serviceArgon2())
      await sql`update users set password_hash = ${hash} where email = any(${sql.array(emails)}::text[])`
    }
  } finally {
    await seeder.stop()
    await sql.end({ timeout: 5 })
  }
  console.log(`  seeded ${n} accounts${opts.signIn ? ', each signed in once' : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return accounts
}

/**
 * per connection: its own client address (198.18.0.0/15, the benchmarking range; the service trusts
 * X-Forwarded-For from 127.0.0.1) and its own share of the items, round-robin, each made into a
 * request by `request`
 */
export function perClient<T> (items: T[], connections: number, request: (item: T) => { headers?: Record<string, string>, body?: string }) {
  return Array.from({ length: connections }, (_, c) => {
    const address = { 'x-forwarded-for': `198.18.${c >> 8}.${(c & 255) + 1}` }
    return items.filter((_, i) => i % connections === c).map((item) => {
      const r = request(item)
      return { ...r, headers: { ...address, ...r.headers } }
    })
  })
}
