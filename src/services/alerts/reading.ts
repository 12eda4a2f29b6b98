// Reading alerts (docs/integration.md, Watches and alerts): a user's alerts newest first with their
// unread count, and marking them read. Raising them is ./record.ts, called by the alert worker.
// Another user's alert is 404, as an unknown one.
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { alerts } from '../../db/schema/index.ts'
import type { Alert } from '../../../schemas/alerts.ts'
import { notFound } from '../../errors.ts'
import { toAlert } from './record.ts'

export interface AlertListQuery { unread?: boolean, offset: number, limit: number }

export function createAlertReading (deps: { database: Database, now?: () => number }) {
  const db = deps.database.db
  const now = () => new Date((deps.now ?? Date.now)())

  const mine = (userId: string) => eq(alerts.userId, userId)
  const unreadOf = (userId: string) => and(eq(alerts.userId, userId), isNull(alerts.readAt))

  /** the user's unread alerts: a count over alerts_unread_idx, which holds only the unread rows */
  async function unreadCount (userId: string): Promise<number> {
    const [{ n }] = await db.select({ n: count() }).from(alerts).where(unreadOf(userId))
    return n
  }

  return {
    unreadCount,

    /** newest first (by the user's seq); `unread` in the answer counts every unread alert, whatever the query */
    async list (userId: string, query: AlertListQuery) {
      const where = query.unread === true ? unreadOf(userId) : mine(userId)
      const rows = await db.select().from(alerts).where(where)
        .orderBy(desc(alerts.seq)).offset(query.offset).limit(query.limit)
      const unread = await unreadCount(userId)
      // with `unread`, the query's total is the unread count itself
      const total = query.unread === true ? unread : (await db.select({ n: count() }).from(alerts).where(where))[0].n
      return { items: rows.map(toAlert), total, hasMore: query.offset + rows.length < total, unread }
    },

    /** the alert, read (the first reading's time is kept); 404 for an unknown alert or another user's */
    async markRead (userId: string, alertId: string): Promise<Alert> {
      const [row] = await db.update(alerts).set({ readAt: sql`coalesce(${alerts.readAt}, ${now().toISOString()}::timestamptz)` })
        .where(and(eq(alerts.id, alertId), mine(userId))).returning()
      if (!row) throw notFound('alert not found')
      return toAlert(row)
    },

    /** every alert of the user read: how many this call marked, and the unread count after it */
    async markAllRead (userId: string): Promise<{ read: number, unread: number }> {
      const marked = await db.update(alerts).set({ readAt: now() }).where(unreadOf(userId)).returning({ id: alerts.id })
      return { read: marked.length, unread: await unreadCount(userId) }
    }
  }
}

export type AlertReading = ReturnType<typeof createAlertReading>
