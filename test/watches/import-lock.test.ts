// A watch created while an import is being written reads its profiles' data months after that
// import commits (docs/decisions/watches-and-alerts.md, Watches and alerts: a watch reads its data
// months with imports held off). Shown on PostgreSQL: a second connection holds the import's lock
// with a new month written but not committed, the watch's creation waits for it, and the watch has
// seen that month. PGlite is one embedded connection, where nothing can write beside the held
// transaction.
import t from '../tap.ts'
import { build, onPostgres, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { MONTH_START, seedReportData } from '../reports/seed.ts'
import { sameDatabase } from '../streams/databases.ts'
import { IMPORT_LOCK } from '../../src/db/locks.ts'
import { toMonth } from '../../src/engine/index.ts'
import { reportRow, userIdOf } from './support.ts'

const skip = onPostgres ? false : 'holding an import while a watch is created needs PostgreSQL (set TEST_DATABASE_URL)'

t.test('a watch created during an import waits for it and counts its new month as seen', { skip }, async (t) => {
  const app = await build(t)
  await seedReportData(app.db)
  const user = await signedInUser(app)
  const reportId = await reportRow(app, userIdOf(user.token))
  const importer = await sameDatabase(t, app.database)
  const waiting = async () => Number((await app.database.query<{ n: string }>(
    "select count(*) as n from pg_locks where locktype = 'advisory' and not granted"))[0].n) > 0

  let created: Promise<{ statusCode: number }> | undefined
  await importer.sql!.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${String(IMPORT_LOCK)}::bigint)`
    // the import's new month, written and not yet committed
    await tx`insert into follows (profile_id, account_id, since) values ('p-1', 'a-4', ${MONTH_START(0)})`
    created = app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/watch`, headers: user.auth })
    await until(waiting, { timeoutMs: 30_000, what: "the watch's creation waiting for the import's lock" })
  })
  const res = await created!
  t.equal(res.statusCode, 201)
  const [row] = await app.database.query<{ seen_month: number }>(
    'select seen_month from watch_profiles wp join watches w on w.id = wp.watch_id where w.report_id = $1', [reportId])
  t.equal(row.seen_month, toMonth(MONTH_START(0)), "the import's month, committed before the watch read it")
})
