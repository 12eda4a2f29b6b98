// Watches (docs/integration.md, Watches and alerts): a user watches a ready report of theirs, up to the
// limit that applies now, and stops. Creating one records each of the report's profiles with the month
// its data holds (watch_profiles), so watching raises nothing for what the report already shows
// (docs/decisions/watches-and-alerts.md, Watches and alerts). The alert worker reads those rows; it
// is not here.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { IMPORT_LOCK } from '../../db/locks.ts'
import { reports, users, watches, watchProfiles } from '../../db/schema/index.ts'
import type { Watch } from '../../../schemas/alerts.ts'
import { toMonth } from '../../engine/index.ts'
import { notFound, ReportNotReady, Unauthorized, WatchLimitReached } from '../../errors.ts'
import { billingQueries } from '../billing/queries.ts'
import type { ReportService } from '../reports/index.ts'
import { dataMonths } from './data-month.ts'

export interface WatchServiceDeps {
  database: Database
  /** the reports' ownership rule: 404 for an unknown report, 403 for another user's */
  reports: Pick<ReportService, 'owned'>
  /** config.alerts: WATCH_MAX, and WATCH_MAX_SUBSCRIBED with an active subscription */
  limits: { maxWatches: number, maxWatchesSubscribed: number }
  now?: () => number
}

type WatchRow = typeof watches.$inferSelect

const toWatch = (row: Pick<WatchRow, 'id' | 'reportId' | 'createdAt'>): Watch =>
  ({ id: row.id, reportId: row.reportId, createdAt: row.createdAt.toISOString() })

export function createWatchService (deps: WatchServiceDeps) {
  const db = deps.database.db
  const clock = deps.now ?? Date.now
  const now = () => new Date(clock())

  /** the watches this user may hold now */
  async function limitOf (tx: Db, userId: string): Promise<number> {
    const subscribed = await billingQueries(tx, clock).isEntitled(userId)
    return subscribed ? deps.limits.maxWatchesSubscribed : deps.limits.maxWatches
  }

  return {
    limitOf: (userId: string) => limitOf(db, userId),

    /**
     * Watch a ready report of the user's: `created` false when it was watched already (the same
     * watch). 404 unknown report, 403 another user's, 409 not ready, 402 past the user's limit.
     */
    async create (userId: string, reportId: string): Promise<{ watch: Watch, created: boolean }> {
      const report = await deps.reports.owned(userId, reportId)
      if (report.status !== 'ready') throw new ReportNotReady()
      return await db.transaction(async (tx) => {
        // The owner's row, locked: a user's creates run one at a time, so two cannot both pass the
        // limit, and the same report's second create finds the first's watch below.
        const [owner] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        if (!owner) throw new Unauthorized()
        const [existing] = await tx.select().from(watches).where(eq(watches.reportId, reportId))
        if (existing) return { watch: toWatch(existing), created: false }
        // the report, kept from deletion until this transaction ends (a delete would cascade to the watch)
        const [kept] = await tx.select({ generatedAt: reports.generatedAt }).from(reports)
          .where(and(eq(reports.id, reportId), eq(reports.userId, userId))).for('key share')
        if (!kept) throw notFound('report not found')
        const [{ n }] = await tx.select({ n: count() }).from(watches).where(eq(watches.userId, userId))
        if (n >= await limitOf(tx, userId)) throw new WatchLimitReached()
        const [row] = await tx.insert(watches).values({ userId, reportId, createdAt: now() }).returning()

        const profiles = report.profiles
        // no import is writing while the data months are read (src/db/locks.ts)
        await tx.execute(sql`select pg_advisory_xact_lock_shared(${String(IMPORT_LOCK)}::bigint)`)
        const months = await dataMonths(tx, profiles.map((p) => p.profileId))
        // a profile without follows has seen the month the report was made in
        const madeIn = toMonth(kept.generatedAt ?? now())
        if (profiles.length > 0) {
          await tx.insert(watchProfiles).values(profiles.map((p) => ({
            watchId: row.id, source: p.source, profileId: p.profileId, seenMonth: months.get(p.profileId) ?? madeIn
          })))
        }
        return { watch: toWatch(row), created: true }
      })
    },

    /** stop watching: 404 unknown report or not watched, 403 another user's report */
    async remove (userId: string, reportId: string): Promise<void> {
      await deps.reports.owned(userId, reportId)
      const gone = await db.delete(watches).where(and(eq(watches.reportId, reportId), eq(watches.userId, userId)))
        .returning({ id: watches.id })
      if (gone.length === 0) throw notFound('the report is not watched')
    },

    /** the user's watches, newest first, with the limit that applies now */
    async list (userId: string, offset: number, limit: number) {
      const where = eq(watches.userId, userId)
      const [{ total }] = await db.select({ total: count() }).from(watches).where(where)
      const rows = await db.select({ id: watches.id, reportId: watches.reportId, createdAt: watches.createdAt }).from(watches).where(where)
        .orderBy(desc(watches.createdAt), desc(watches.id)).offset(offset).limit(limit)
      return { items: rows.map(toWatch), total, hasMore: offset + rows.length < total, limit: await limitOf(db, userId) }
    }
  }
}

export type WatchService = ReturnType<typeof createWatchService>
