// The overview staff open first (docs/operations.md, Support): the accounts, the reports, the report
// queue, the webhook backlog and the alert work waiting, counted across every instance (all of it
// lives in the database).
import { count, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { alertPending, reports, users, webhookDeliveries } from '../../db/schema/index.ts'

/** what the overview needs of the report queue: pg-boss's getQueueSize */
export interface QueueSizes {
  getQueueSize: (name: string, options?: { before: 'active' | 'completed' }) => Promise<number>
}

const REPORT_STATUSES = ['draft', 'queued', 'generating', 'ready', 'failed'] as const
const DAY_MS = 24 * 3600 * 1000

export function createStaffOverview (deps: { database: Database, queue: QueueSizes, queueName: string, now?: () => number }) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  return {
    async read () {
      const since = new Date(now() - DAY_MS)
      const [[u], byStatus, [generated], deliveries, [pending], waiting, unfinished] = await Promise.all([
        db.select({
          total: count(),
          confirmed: sql<number>`count(${users.confirmedAt})::int`,
          disabled: sql<number>`count(${users.disabledAt})::int`,
          new24h: sql<number>`(count(*) filter (where ${users.createdAt} >= ${since.toISOString()}::timestamptz))::int`
        }).from(users),
        db.select({ status: reports.status, n: count() }).from(reports).groupBy(reports.status),
        db.select({ n: count() }).from(reports).where(sql`${reports.generatedAt} >= ${since.toISOString()}::timestamptz`),
        db.select({ status: webhookDeliveries.status, n: count() }).from(webhookDeliveries)
          .where(sql`${webhookDeliveries.status} in ('pending', 'failed')`).groupBy(webhookDeliveries.status),
        db.select({ n: count() }).from(alertPending),
        deps.queue.getQueueSize(deps.queueName),
        deps.queue.getQueueSize(deps.queueName, { before: 'completed' })
      ])
      const statuses = Object.fromEntries(REPORT_STATUSES.map((s) => [s, byStatus.find((r) => r.status === s)?.n ?? 0])) as Record<typeof REPORT_STATUSES[number], number>
      const delivery = (status: string) => deliveries.find((r) => r.status === status)?.n ?? 0
      return {
        users: { total: u.total, confirmed: Number(u.confirmed), disabled: Number(u.disabled), new24h: Number(u.new24h) },
        reports: { byStatus: statuses, generated24h: generated.n },
        queue: { waiting, active: Math.max(0, unfinished - waiting) },
        webhooks: { pending: delivery('pending'), failed: delivery('failed') },
        alerts: { pending: pending.n }
      }
    }
  }
}

export type StaffOverview = ReturnType<typeof createStaffOverview>
