// What a stored Stripe subscription status means to the service: which statuses entitle (DESIGN 7),
// which are final, and which subscription of a user GET /auth/info shows.
import { asc, desc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { subscriptions } from '../db/schema.ts'
import { ACTIVE_SUBSCRIPTION } from './reports.ts'

export const ENTITLING_STATUSES: readonly string[] = ACTIVE_SUBSCRIPTION
// Stripe never moves a subscription out of these.
export const FINAL_STATUSES: readonly string[] = ['canceled', 'incomplete_expired']

/**
 * A subscription's lifecycle stage: 0 not started (incomplete), 1 running (active, trialing,
 * past_due, unpaid, paused), 2 ended. Two events of the same second never move a row to a lower stage.
 */
export function lifecycleStage (status: string): 0 | 1 | 2 {
  if (status === 'incomplete') return 0
  return FINAL_STATUSES.includes(status) ? 2 : 1
}

export function lifecycleStageSql (column: AnyColumn | SQL): SQL {
  return sql`(case when ${column} = 'incomplete' then 0 when ${column} in ('canceled', 'incomplete_expired') then 2 else 1 end)`
}

/** the subscription to show a user: an entitling one, else a running one, else a starting one, else the newest */
export async function currentSubscription (db: Db, userId: string) {
  const shown = sql`(case when ${inArray(subscriptions.status, [...ENTITLING_STATUSES])} then 0
    when ${subscriptions.status} = 'incomplete' then 2
    when ${inArray(subscriptions.status, [...FINAL_STATUSES])} then 3 else 1 end)`
  const [row] = await db.select({ status: subscriptions.status, currentPeriodEnd: subscriptions.currentPeriodEnd })
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(asc(shown), desc(subscriptions.eventCreated), desc(subscriptions.updatedAt))
    .limit(1)
  return row ? { status: row.status, currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null } : null
}
