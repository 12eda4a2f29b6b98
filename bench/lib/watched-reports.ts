// Scenario 9's reports and watches, written straight into the database: one ready report per watched
// profile, owned in turns of `perUser` by the seeded users, and a watch on each whose profile was
// last seen in month M. Each report's stored body and ETag are what the report worker stores
// (src/services/reports/generation.ts): the engine's result on the same data, in the same JSON, so
// that GET /report/{id} serves bytes of a real report's size. Generating 10,000 reports through the
// queue would take the scenario minutes; the engine alone takes seconds. The per-source details
// (twice the body's size) are left out: the detail routes are not measured here, and writing them
// tripled the time the rows took.
import { createHash, randomUUID } from 'node:crypto'
import type postgres from 'postgres'
import { computeReport, formatMonth } from '../../src/engine/index.ts'
import type { AlertsInput } from '../data/alerts-input.ts'

/** rows per INSERT: a few MiB of bodies at most */
const BATCH = 500

export interface WatchedReport {
  reportId: string
  watchId: string
  userId: string
  /** index into input.profiles */
  profile: number
}

interface ReportRow { id: string, userId: string, profiles: string, body: string, etag: string }

/** the row generation.ts would store for profile p's one-profile report, generated in `reportMonth` */
function reportRow (input: AlertsInput, p: number, userId: string, reportMonth: number, at: string): ReportRow {
  const id = randomUUID()
  const profile = input.profiles[p]
  const friends = input.friendsOf(p).map((f) => input.profiles[f])
  const results = computeReport({ dataset: input.dataset, month: formatMonth(reportMonth), profiles: [{ profile, friends }] })
  const body = JSON.stringify({ id, status: 'ready', progress: 100, createdAt: at, generatedAt: at, items: results.map((r) => r.item) })
  return {
    id,
    userId,
    profiles: JSON.stringify([{ source: profile.source, username: profile.username, fullname: profile.fullname, image: profile.image, profileId: profile.id }]),
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
  }
}

/**
 * A ready report and a watch for every profile of input, profile p owned by userIds[floor(p /
 * perUser)]; the watch's seen month is input.month. Returns them in profile order.
 */
export async function insertWatchedReports (sql: postgres.Sql, input: AlertsInput, userIds: string[], perUser: number, reportMonth: number): Promise<WatchedReport[]> {
  if (userIds.length * perUser < input.profiles.length) throw new Error(`${userIds.length} users with ${perUser} watches each cannot watch ${input.profiles.length} profiles`)
  const out: WatchedReport[] = []
  const at = new Date().toISOString()
  let inFlight: Promise<void> = Promise.resolve()
  for (let from = 0; from < input.profiles.length; from += BATCH) {
    const rows: ReportRow[] = []
    const watched: WatchedReport[] = []
    for (let p = from; p < Math.min(from + BATCH, input.profiles.length); p++) {
      const userId = userIds[Math.floor(p / perUser)]
      const row = reportRow(input, p, userId, reportMonth, at)
      rows.push(row)
      watched.push({ reportId: row.id, watchId: randomUUID(), userId, profile: p })
    }
    // the statements of this batch go out while the engine computes the next (one connection pipelines them)
    await inFlight
    inFlight = write(sql, rows, watched, input, at)
    out.push(...watched)
  }
  await inFlight
  return out
}

async function write (sql: postgres.Sql, rows: ReportRow[], watched: WatchedReport[], input: AlertsInput, at: string): Promise<void> {
  const col = <K extends keyof ReportRow>(k: K) => rows.map((r) => r[k])
  await Promise.all([
    sql.unsafe(`insert into reports (id, user_id, status, progress, stage, profiles, body, etag, created_at, generated_at)
      select id, user_id, 'ready', 100, 'diffs', profiles::jsonb, body, etag, $5, $5
        from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $6::text[]) as x(id, user_id, profiles, body, etag)`,
    [col('id'), col('userId'), col('profiles'), col('body'), at, col('etag')]),
    sql.unsafe(`insert into watches (id, user_id, report_id, created_at)
      select *, $4::timestamptz from unnest($1::uuid[], $2::uuid[], $3::uuid[])`,
    [watched.map((w) => w.watchId), watched.map((w) => w.userId), watched.map((w) => w.reportId), at]),
    sql.unsafe(`insert into watch_profiles (watch_id, source, profile_id, seen_month)
      select *, $4::int from unnest($1::uuid[], $2::text[], $3::text[])`,
    [watched.map((w) => w.watchId), watched.map((w) => input.profiles[w.profile].source), watched.map((w) => input.profiles[w.profile].id), input.month])
  ])
}
