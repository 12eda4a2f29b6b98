// A staff disable across two server processes on one PostgreSQL database: disabled on A, the
// account's JWT and API key are refused on B within a second, and its stream open on B ends, as a
// revoked session's does (the same triggers and NOTIFYs: drizzle/0005, drizzle/0009). PGlite is
// embedded in one process, so this runs on PostgreSQL only (the single-process half:
// test/staff/user-actions.test.ts).
import t from '../tap.ts'
import { freshDatabase, onPostgres } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { call, signedInOn, startServer, type ServerProcess } from '../peers/server-process.ts'
import { parseEvents, rawStream } from '../streams/client.ts'
import { databaseUrl } from '../streams/databases.ts'
import { seedReportData } from '../reports/seed.ts'
import { claims } from '../accounts/support.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'

const skip = onPostgres ? false : 'needs PostgreSQL (set TEST_DATABASE_URL): two server processes on one database; PGlite lives inside one process'

t.test('disabled on A: refused on B within a second, its stream on B ended, its key refused on B', { skip }, async (t) => {
  const database = await freshDatabase(t)
  const url = databaseUrl(database)
  const env = { DATABASE_URL: url, WORKERS: '0', SESSION_RECONCILE_S: '1', SIGNUP_FREE_REPORTS: '5' }
  const a = await startServer(t, { ...env, PGAPPNAME: 'pir-a' })
  const b = await startServer(t, { ...env, PGAPPNAME: 'pir-b' })
  await seedReportData(database.db)

  // an admin on A: the role set as `npm run admins` would, an authenticator app set up through the API
  const staff = await signedInOn(a, 'staff')
  await database.query("update users set role = 'admin' where email = $1", [staff.email])
  const begun = await call(a, 'POST', '/auth/mfa/totp', staff.auth)
  t.equal(begun.status, 200)
  const confirmed = await call(a, 'POST', '/auth/mfa/totp/confirm', staff.auth, { code: codeAt(begun.json.secret as string, Date.now()) })
  t.equal(confirmed.json.status, 'success')
  const admin = { authorization: `Bearer ${confirmed.json.token as string}` }

  // the customer: a key made on A, a report streamed on B
  const user = await signedInOn(a, 'customer')
  const userId = claims(user.token).sub as string
  const issued = await call(a, 'POST', '/auth/api-keys', user.auth, { name: 'a program', scopes: ['reports:read'] })
  t.equal(issued.status, 201)
  const key = { authorization: `Bearer ${issued.json.key as string}` }
  const created = await call(b, 'POST', '/report', user.auth, { profiles: [{ source: 'ig', username: 'jdoe' }] })
  t.equal(created.status, 201)
  t.equal((await call(b, 'GET', '/report', key)).status, 200, 'B accepts the key')
  const stream = await rawStream(`${b.url}/api/v1/sse/${created.json.id as string}`, user.auth)
  t.teardown(stream.abort)
  t.equal(stream.status, 200)
  await stream.waitForText((x) => x.includes('event: status'), 'the current state')

  const disabled = await call(a, 'POST', `/admin/users/${userId}/disable`, admin, { reason: 'abuse report 77' })
  t.equal(disabled.status, 200)
  t.match(disabled.json, { id: userId, disabled: true })

  // the deadlines count from the disable's answer
  const refusedOn = async (server: ServerProcess, headers: Record<string, string>, path: string, what: string) => {
    await until(async () => (await call(server, 'GET', path, headers)).status === 401, { timeoutMs: 1000, intervalMs: 20, what })
    t.pass(what)
  }
  await Promise.all([
    refusedOn(b, user.auth, '/auth/info', 'B refuses the JWT within a second'),
    refusedOn(b, key, '/report', 'B refuses the API key within a second'),
    (async () => {
      await stream.waitForEnd(1000)
      t.ok(stream.complete(), 'the stream on B ends whole within a second')
      t.same(parseEvents(stream.text()).at(-1), { id: undefined, event: 'end', data: { reason: 'session-ended' } }, 'its last event is end')
    })()
  ])
  const signin = await call(b, 'POST', '/auth/signin', {}, { email: user.email, password: 'correct horse battery staple', token: true })
  t.same(signin.json, { status: 'error', fieldError: { field: 'email', message: 'account disabled' } }, 'B says account disabled to the right password')
})
