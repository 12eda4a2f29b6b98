// The in-memory views (src/services/caches/view-cache.ts): GET /auth/info, ready reports and
// session rows are served from memory, and stay correct across instances. Two apps on one database,
// each with its own connections and LISTEN on PostgreSQL (another handle on the one embedded instance
// on PGlite): a change made through one, or by any other writer (plain SQL here, as a CLI or an
// operator would), reaches the other through drizzle/0003's triggers and NOTIFY within a second.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, freshDatabase, signedInUser, type Tap } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { sameDatabase } from '../streams/databases.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import { createViewCache } from '../../src/services/caches/view-cache.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, post, refresh } from '../accounts/support.ts'

const SOON = { timeoutMs: 1000, intervalMs: 10 }

async function twoInstances (t: Tap) {
  const database = await freshDatabase(t)
  const a = await build(t, FAST_ARGON2, { database })
  const b = await build(t, FAST_ARGON2, { database: await sameDatabase(t, database) })
  const session = await signedInUser(a)
  const userId = claims(session.token).sub as string
  return { a, b, userId, ...session }
}

/** until B's GET /auth/info shows what `seen` looks for */
async function infoOn (b: FastifyInstance, token: string, seen: (body: Record<string, unknown>) => boolean, what: string) {
  return await until(async () => {
    const body = (await info(b, token)).json() as Record<string, unknown>
    return seen(body) ? body : undefined
  }, { ...SOON, what })
}

/** a link secret of the given kind for the user, as the mailer would have sent it */
async function linkSecret (app: FastifyInstance, userId: string, kind: 'confirm' | 'recovery'): Promise<string> {
  const { secret, hash } = newLinkSecret()
  await app.database.query('insert into auth_tokens (hash, kind, user_id, expires_at) values ($1, $2, $3, now() + interval \'1 day\')', [hash, kind, userId])
  return secret
}

t.test('a credit change by any writer reaches the other instance\'s /auth/info', async (t) => {
  const { a, b, token, userId } = await twoInstances(t)
  const before = (await info(b, token)).json().reportCredits as number
  t.equal((await info(b, token)).json().reportCredits, before, 'B serves it again (from memory)')
  await a.database.query('update users set report_credits = report_credits + 5 where id = $1', [userId])
  const after = await infoOn(b, token, (x) => x.reportCredits === before + 5, 'B to show the new credits')
  t.equal(after.reportCredits, before + 5, 'B shows the new credits within 1 s')
  t.equal((await info(a, token)).json().reportCredits, before + 5, 'and A')
})

t.test('a subscription written elsewhere shows on both instances, and its end too', async (t) => {
  const { a, b, token, userId } = await twoInstances(t)
  t.equal((await info(a, token)).json().subscription, null)
  t.equal((await info(b, token)).json().subscription, null)
  await a.database.query(`insert into subscriptions (stripe_subscription_id, user_id, status, event_created)
    values ('sub_views', $1, 'active', 1)`, [userId])
  for (const app of [a, b]) await infoOn(app, token, (x) => (x.subscription as { status?: string } | null)?.status === 'active', 'the subscription')
  await a.database.query('update subscriptions set status = \'canceled\', event_created = 2 where stripe_subscription_id = \'sub_views\'')
  for (const app of [a, b]) await infoOn(app, token, (x) => (x.subscription as { status?: string } | null)?.status === 'canceled', 'its end')
  t.pass('both instances show the subscription within 1 s of each change')
})

t.test('confirmation: the instance that confirms shows it at once, the other within 1 s', async (t) => {
  const { a, b, token, userId } = await twoInstances(t)
  t.equal((await info(a, token)).json().confirmed, false)
  t.equal((await info(b, token)).json().confirmed, false)
  const secret = await linkSecret(a, userId, 'confirm')
  t.equal((await post(a, `/auth/confirm/${secret}`)).statusCode, 200)
  // no waiting here: the writer drops its own view before it answers
  t.equal((await info(a, token)).json().confirmed, true, 'A, right after answering the confirmation')
  await infoOn(b, token, (x) => x.confirmed === true, 'B to show the confirmation')
  t.pass('B within 1 s')
})

t.test('sign-out on A: B refuses the session\'s JWT and its cookie, which B had in memory', async (t) => {
  const { a, b, token, cookie } = await twoInstances(t)
  t.equal((await refresh(b, cookie)).statusCode, 200, 'B knows the session (and keeps its row)')
  t.equal((await info(b, token)).statusCode, 200)
  t.equal((await post(a, '/auth/signout', undefined, { authorization: `Bearer ${token}` })).statusCode, 200)
  await until(async () => (await refresh(b, cookie)).statusCode === 401, { ...SOON, what: 'B to refuse the cookie' })
  t.has((await refresh(b, cookie)).json(), ACCESS_DENIED, 'the cookie, within 1 s')
  t.has((await info(b, token)).json(), ACCESS_DENIED, 'the JWT')
})

t.test('a password change on A ends every session of the user on B too', async (t) => {
  const { a, b, email, token, cookie, userId } = await twoInstances(t)
  const other = await signedInUser(b, { email, signUp: false })
  t.equal((await refresh(b, cookie)).statusCode, 200)
  t.equal((await refresh(b, other.cookie)).statusCode, 200)
  const secret = await linkSecret(a, userId, 'recovery')
  const reset = await post(a, `/auth/recovery/${secret}`, { password: 'a brand new pass phrase 42' })
  t.same(reset.json(), { status: 'success', revoked: { apiKeys: 0, webhooks: [] } })
  for (const [what, c, jwt] of [['A\'s session', cookie, token], ['B\'s session', other.cookie, other.token]] as const) {
    await until(async () => (await refresh(b, c)).statusCode === 401, { ...SOON, what: `B to refuse ${what}` })
    t.has((await info(b, jwt)).json(), ACCESS_DENIED, `${what}: cookie and JWT refused on B within 1 s`)
  }
  t.equal((await signedInUser(b, { email, password: 'a brand new pass phrase 42', signUp: false })).res.statusCode, 200, 'the new password signs in on B')
})

t.test('a ready report is served from memory until it is deleted, on either instance', async (t) => {
  const { a, b, token, userId } = await twoInstances(t)
  const body = JSON.stringify({ id: 'x', status: 'ready', progress: 100, createdAt: new Date().toISOString(), generatedAt: new Date().toISOString(), items: [] })
  const [{ id }] = await a.database.query<{ id: string }>(`insert into reports (user_id, profiles, status, progress, body, etag, generated_at)
    values ($1, '[]', 'ready', 100, $2, '"views-etag"', now()) returning id`, [userId, body])
  const auth = { authorization: `Bearer ${token}` }
  const get = (app: FastifyInstance, headers: Record<string, string> = {}) => app.inject({ url: `/api/v1/report/${id}`, headers: { ...auth, ...headers } })
  for (const app of [a, b]) {
    const res = await get(app)
    t.equal(res.statusCode, 200)
    t.equal(res.body, body, 'the stored bytes')
    t.equal(res.headers.etag, '"views-etag"')
    t.equal((await get(app, { 'if-none-match': '"views-etag"' })).statusCode, 304)
  }
  const { token: otherToken } = await signedInUser(a)
  t.equal((await b.inject({ url: `/api/v1/report/${id}`, headers: { authorization: `Bearer ${otherToken}` } })).statusCode, 403,
    'another user\'s: 403, from memory too')

  t.equal((await a.inject({ method: 'DELETE', url: `/api/v1/report/${id}`, headers: auth })).statusCode, 204)
  t.equal((await get(a)).statusCode, 404, 'gone on A at once')
  await until(async () => (await get(b)).statusCode === 404, { ...SOON, what: 'B to forget the deleted report' })
  t.pass('gone on B within 1 s')
})

t.test('view cache: a load overtaken by a change is answered but not kept', async (t) => {
  let version = 1
  const loads: Array<() => void> = []
  const cache = createViewCache<number>({
    load: async () => {
      const seen = version
      await new Promise<void>((resolve) => loads.push(resolve))
      return seen
    },
    keep: () => true,
    maxEntries: 2,
    ttlMs: 60_000
  })
  const first = cache.get('k')
  version = 2
  cache.invalidate('k') // the change commits while the first load is in flight
  const second = cache.get('k')
  t.equal(loads.length, 2, 'a caller after the change does not join the load from before it')
  loads.splice(0).forEach((resolve) => resolve())
  t.equal(await first, 1, 'the first caller gets what its load read')
  t.equal(await second, 2)
  t.equal(cache.peek('k'), 2, 'only the load that began after the change is kept')

  cache.set('a', 10)
  cache.set('b', 11)
  t.equal(cache.size, 2)
  t.equal(cache.peek('k'), undefined, 'past maxEntries the oldest goes')
  cache.clear()
  t.equal(cache.size, 0)
})
