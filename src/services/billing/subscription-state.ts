// The subscription rules: what a stored Stripe subscription status means to the service. Which
// statuses entitle, which are final, the order of a subscription's lifecycle, when a webhook event may
// change a stored row, and which subscription of a user GET /auth/info shows. Every status the service
// names is in this file, in TypeScript and in the SQL that applies the same rule.
import { and, asc, desc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { subscriptions } from '../../db/schema/index.ts'

/** a user with a subscription in one of these generates reports without credits */
export const ENTITLING_STATUSES: readonly string[] = ['active', 'trialing']
/** Checkout created the subscription and the first payment is not through yet */
export const STARTING_STATUS = 'incomplete'
/** Stripe never moves a subscription out of these */
export const FINAL_STATUSES: readonly string[] = ['canceled', 'incomplete_expired']

export const isFinal = (status: string): boolean => FINAL_STATUSES.includes(status)

// The statuses as SQL literals: constants of this file, never input.
const literal = (status: string) => sql.raw(`'${status}'`)
const literals = (statuses: readonly string[]) => sql.raw(statuses.map((s) => `'${s}'`).join(', '))

/**
 * A subscription's lifecycle stage: 0 not started (incomplete), 1 running (active, trialing,
 * past_due, unpaid, paused), 2 ended. Two events of the same second never move a row to a lower stage.
 */
export function lifecycleStage (status: string): 0 | 1 | 2 {
  if (status === STARTING_STATUS) return 0
  return isFinal(status) ? 2 : 1
}

export function lifecycleStageSql (column: AnyColumn | SQL): SQL {
  return sql`(case when ${column} = ${literal(STARTING_STATUS)} then 0 when ${column} in (${literals(FINAL_STATUSES)}) then 2 else 1 end)`
}

/**
 * An event must not change the stored row when the row has ended, when the row came from a later
 * event, or when both are of the same second and the event's status is an earlier stage.
 */
export function keepsStoredRow (stored: { status: string, eventCreated: number }, status: string, created: number): boolean {
  if (isFinal(stored.status)) return true
  if (stored.eventCreated !== created) return stored.eventCreated > created
  return lifecycleStage(status) < lifecycleStage(stored.status)
}

/** keepsStoredRow's rule negated, for the upsert's `where`: concurrent events cannot race past it */
export function replacesStoredRowSql (incoming: { status: SQL, eventCreated: SQL }): SQL {
  const stored = { status: subscriptions.status, eventCreated: sql`${subscriptions.eventCreated}` }
  return sql`${stored.status} not in (${literals(FINAL_STATUSES)}) and (${stored.eventCreated} < ${incoming.eventCreated} or
    (${stored.eventCreated} = ${incoming.eventCreated} and ${lifecycleStageSql(incoming.status)} >= ${lifecycleStageSql(stored.status)}))`
}

/** the condition of a user's entitling subscriptions */
export const entitlingSubscriptionOf = (userId: string): SQL =>
  and(eq(subscriptions.userId, userId), inArray(subscriptions.status, [...ENTITLING_STATUSES]))!

// which of a user's subscriptions is shown first: an entitling one, else a running one, else a starting one, else the newest
const shown = () => sql`(case when ${inArray(subscriptions.status, [...ENTITLING_STATUSES])} then 0
    when ${subscriptions.status} = ${literal(STARTING_STATUS)} then 2
    when ${inArray(subscriptions.status, [...FINAL_STATUSES])} then 3 else 1 end)`

/** the status of the subscription currentSubscription shows, as a scalar subquery on the user id `owner` (staff lists, one query a page) */
export function currentSubscriptionStatusSql (owner: SQL): SQL<string | null> {
  return sql<string | null>`(select ${subscriptions.status} from ${subscriptions} where ${subscriptions.userId} = ${owner}
    order by ${shown()} asc, ${subscriptions.eventCreated} desc, ${subscriptions.updatedAt} desc limit 1)`
}

/** the subscription to show a user: an entitling one, else a running one, else a starting one, else the newest */
export async function currentSubscription (db: Db, userId: string) {
  const [row] = await db.select({ status: subscriptions.status, currentPeriodEnd: subscriptions.currentPeriodEnd })
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(asc(shown()), desc(subscriptions.eventCreated), desc(subscriptions.updatedAt))
    .limit(1)
  return row ? { status: row.status, currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null } : null
}
