// Scale-out: two server processes on one PostgreSQL database, as `npm start` runs them (TLS off behind
// a proxy, plain HTTP allowed for the test). A has a report worker, B none. A user signs in on A and
// refreshes on B with the cookie; on B they subscribe to a report that A's worker generates and get
// every event in order (fan-out by NOTIFY across processes); signing out on A makes the session's
// JWTs fail on B within a second. PGlite is embedded in one process, so this runs on PostgreSQL only.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from '../tap.ts'
import { freshDatabase, GOOD_PASSWORD, onPostgres, uniqueEmail } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { call, startServer } from '../peers/server-process.ts'
import { generationEvents, openEventSource, seen } from '../streams/client.ts'
import { databaseEnv, listenConnections } from '../streams/databases.ts'

const INGEST_TOKEN = 'scale-out-ingest-token-0123456789'
const fixture = fileURLToPath(new URL('../fixtures/ingest-valid.ndjson', import.meta.url))

const skip = onPostgres ? false : 'two processes on one database need PostgreSQL (set TEST_DATABASE_URL); PGlite lives inside one process'

t.test('two instances on one database: sessions, revocation, jobs and SSE fan-out across them', { skip }, async (t) => {
  const database = await freshDatabase(t)
  // one after the other: the first start creates the queue's schema
  const a = await startServer(t, { ...databaseEnv(database), WORKERS: '1', INGEST_TOKEN })
  const b = await startServer(t, { ...databaseEnv(database), WORKERS: '0' })
  t.not(a.url, b.url)

  // the profile data, pushed by a collector to A
  const ingest = await fetch(`${a.url}/api/v1/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
    body: readFileSync(fixture)
  })
  t.equal(ingest.status, 200, 'profile data imported')

  // sign up and sign in on A
  const email = uniqueEmail('scale-out')
  t.equal((await call(a, 'POST', '/auth/signup', {}, { email, password: GOOD_PASSWORD, token: 'captcha' })).json.status, 'success')
  const signin = await call(a, 'POST', '/auth/signin', {}, { email, password: GOOD_PASSWORD, token: true })
  t.equal(signin.json.status, 'success')
  const jwtA = signin.json.token as string
  const sid = signin.headers.getSetCookie().find((c) => c.startsWith('sid='))
  t.ok(sid, 'A set the session cookie')
  const cookie = sid!.split(';')[0]

  // refresh on B with the cookie alone: B knows A's session
  const refresh = await call(b, 'POST', '/auth/token/refresh', { cookie })
  t.equal(refresh.status, 200)
  const jwtB = refresh.json.token as string
  t.ok(jwtB)
  t.equal((await call(b, 'GET', '/auth/info', { authorization: `Bearer ${jwtA}` })).json.email, email, 'A\'s JWT works on B')
  t.equal((await call(a, 'GET', '/auth/info', { authorization: `Bearer ${jwtB}` })).json.email, email, 'B\'s JWT works on A')

  // a report, created on B and subscribed to on B, Bearer (through the fetch option) and cookie only
  const created = await call(b, 'POST', '/report', { authorization: `Bearer ${jwtB}` }, { profiles: [{ source: 'ig', username: 'jdoe' }] })
  t.equal(created.status, 201)
  const id = created.json.id as string
  const sse = `${b.url}/api/v1/sse/${id}`
  const clients = [
    ['Bearer', openEventSource(sse, { authorization: `Bearer ${jwtB}` })],
    ['cookie', openEventSource(sse, { cookie })]
  ] as const
  t.teardown(() => { for (const [, c] of clients) c.close() })
  for (const [name, c] of clients) await c.waitFor((r) => r.length === 1, `${name}: the draft state`)

  // B queues the job; B has no worker, A's takes it; its events reach B's streams through NOTIFY
  t.equal((await call(b, 'POST', `/report/${id}/generate`, { authorization: `Bearer ${jwtB}` })).status, 202)
  const expected = [{ id: '', event: 'status', data: { reportId: id, status: 'draft', progress: 0, stage: null } }, ...generationEvents(id)]
  for (const [name, c] of clients) {
    await c.waitFor((r) => r.some((e) => e.type === 'done'), `${name}: done`, 60_000)
    t.same(seen(c), expected, `${name}: every event on B, once, in order`)
    t.equal((await c.waitForFailure(`${name}: 204 on reconnect`)).code, 204, `${name}: then 204, and the client stops`)
  }
  t.equal((await call(a, 'GET', `/report/${id}`, { authorization: `Bearer ${jwtA}` })).json.status, 'ready', 'A serves the report B queued')

  t.equal(await listenConnections(database), 2, 'one LISTEN connection per instance')

  // signing out on A: the session's JWTs fail on B within a second (NOTIFY feeds B's ended set)
  t.equal((await call(a, 'POST', '/auth/signout', { authorization: `Bearer ${jwtA}` })).status, 200)
  await until(async () => (await call(b, 'GET', '/auth/info', { authorization: `Bearer ${jwtB}` })).status === 401,
    { timeoutMs: 1000, intervalMs: 10, what: 'B to refuse the signed-out session\'s JWT within 1 s' })
  t.pass('B refuses the JWT it issued itself within 1 s of the sign-out on A')
  t.equal((await call(b, 'GET', '/auth/info', { authorization: `Bearer ${jwtA}` })).status, 401, 'and A\'s JWT')
  t.equal((await call(b, 'GET', `/sse/${id}`, { authorization: `Bearer ${jwtB}` })).status, 401, 'and its streams')
  t.equal((await call(b, 'POST', '/auth/token/refresh', { cookie })).status, 401, 'and the cookie')
})
