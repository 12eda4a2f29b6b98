// The alert stream across instances: two apps on one database, each with its own connections and
// LISTEN on PostgreSQL (another handle on the one embedded instance on PGlite). An alert raised
// through A (recordAlerts' NOTIFY alerts at commit) reaches the user's streams on B, each once and in
// order; on PostgreSQL, the alerts raised while B's LISTEN connection is cut reach B's streams once it
// is back (the alert hub reads after what its streams have on every reconnect).
import t from '../tap.ts'
import { build, freshDatabase, onPostgres, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { change, raise, userIdByEmail, watchedReport } from '../watches/support.ts'
import { closeApp, listen, openEventSource } from '../streams/client.ts'
import { sameDatabase } from '../streams/databases.ts'

const database = await freshDatabase(t)
const a = await build(t, {}, { database })
const b = await build(t, {}, { database: await sameDatabase(t, database) })
const baseB = await listen(b)

const user = await signedInUser(a)
const userId = await userIdByEmail(a, user.email)
const watched = await watchedReport(a, userId)
const other = await signedInUser(a)
const otherWatched = await watchedReport(a, await userIdByEmail(a, other.email))

t.test('an alert raised through A reaches the user\'s streams on B, once each, in order; another user\'s does not', async (t) => {
  const bearer = openEventSource(`${baseB}/api/v1/sse/alerts`, user.auth)
  const cookie = openEventSource(`${baseB}/api/v1/sse/alerts`, { cookie: user.cookie })
  const stranger = openEventSource(`${baseB}/api/v1/sse/alerts`, other.auth)
  t.teardown(() => { bearer.close(); cookie.close(); stranger.close() })
  await until(() => bearer.opens() + cookie.opens() + stranger.opens() === 3, { what: 'three streams open on B' })

  const raised = [...await raise(a, [change(watched, '2026-01', 1), change(watched, '2026-02')]), ...await raise(a, [change(watched, '2026-03')])]
  const expected = raised.map((r) => ({ type: 'alert', id: String(r.seq), data: r.alert }))
  for (const c of [bearer, cookie]) {
    await c.waitFor((r) => r.length >= 3, 'the three alerts on B')
    t.same(c.received, expected, 'each alert once, in order')
  }
  const theirs = await raise(a, [change(otherWatched, '2026-01')])
  await stranger.waitFor((r) => r.length >= 1, 'the other user\'s alert')
  t.same(stranger.received.map((r) => r.id), [String(theirs[0].seq)], 'the other user gets only their own')
  t.equal(bearer.received.length, 3, 'and the user none of it')
})

t.test('after B\'s LISTEN connection is cut, the alerts raised meanwhile reach B\'s streams', { skip: onPostgres ? false : 'PGlite has no connection to cut' }, async (t) => {
  const stream = openEventSource(`${baseB}/api/v1/sse/alerts`, user.auth)
  t.teardown(() => stream.close())
  await until(() => stream.opens() === 1, { what: 'the stream open on B' })
  // every LISTEN connection of this database (A's and B's): whichever hears the NOTIFY, B's must catch up
  const [{ n }] = await database.query<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen %'`)
  t.ok(n >= 1, 'the LISTEN connections are cut')
  const raised = await raise(a, [change(watched, '2026-04'), change(watched, '2026-05')])
  await stream.waitFor((r) => r.length >= 2, 'the alerts raised while the LISTEN was cut')
  t.same(stream.received.map((r) => r.id), raised.map((r) => String(r.seq)), 'each once, in order')
})

await t.test('close', async () => { await closeApp(b) })
