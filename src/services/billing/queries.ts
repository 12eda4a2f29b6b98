// The billing service's queries: the paying user, the link between a user and a Stripe customer, the
// stored subscription rows and the webhook events already applied.
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { stripeEvents, subscriptions, users } from '../../db/schema/index.ts'
import { isUuid } from '../../../schemas/common.ts'
import { Unauthorized } from '../../errors.ts'
import { entitlingSubscriptionOf, replacesStoredRowSql } from './subscription-state.ts'

/** the fields the service keeps of a Stripe subscription (read by src/services/billing/webhook.ts) */
export interface SubscriptionState {
  id: string
  status: string
  customerId: string | undefined
  metadata: Record<string, string>
  priceId: string | null
  currentPeriodEnd: Date | null
}

export interface WebhookEvent { id: string, type: string, created: number }

/** a user a Stripe object belongs to */
export interface Owner { id: string, acquisitionCode: string | null, stripeCustomerId: string | null }

export function billingQueries (db: Db, now: () => number) {
  async function userRow (userId: string) {
    const [user] = await db.select({
      id: users.id, email: users.email, acquisitionCode: users.acquisitionCode, stripeCustomerId: users.stripeCustomerId
    }).from(users).where(eq(users.id, userId))
    if (!user) throw new Unauthorized()
    return user
  }

  /** records the event id; false when it was already there (a concurrent redelivery) */
  async function recordEvent (event: { id: string, type: string }, tx: Pick<Db, 'insert'> = db): Promise<boolean> {
    const rows = await tx.insert(stripeEvents).values({ id: event.id, type: event.type, createdAt: new Date(now()) })
      .onConflictDoNothing().returning({ id: stripeEvents.id })
    return rows.length > 0
  }

  return {
    userRow,
    recordEvent,

    async isEntitled (userId: string): Promise<boolean> {
      const rows = await db.select({ id: subscriptions.stripeSubscriptionId }).from(subscriptions)
        .where(entitlingSubscriptionOf(userId)).limit(1)
      return rows.length > 0
    },

    /**
     * Links the user to the customer unless the user has one already; the user's customer afterwards
     * (the other one when a concurrent request linked first).
     */
    async linkCustomer (userId: string, customerId: string): Promise<string> {
      const linked = await db.update(users).set({ stripeCustomerId: customerId })
        .where(and(eq(users.id, userId), isNull(users.stripeCustomerId))).returning({ id: users.stripeCustomerId })
      if (linked.length) return customerId
      return (await userRow(userId)).stripeCustomerId ?? customerId
    },

    /** the user a Stripe object belongs to: its customer first, then its metadata's userId */
    async ownerOf (customerId: string | undefined, userIdHints: Array<string | undefined>): Promise<Owner | undefined> {
      const columns = { id: users.id, acquisitionCode: users.acquisitionCode, stripeCustomerId: users.stripeCustomerId }
      if (customerId) {
        const [byCustomer] = await db.select(columns).from(users).where(eq(users.stripeCustomerId, customerId))
        if (byCustomer) return byCustomer
      }
      for (const hint of userIdHints) {
        if (!hint || !isUuid(hint)) continue
        const [byId] = await db.select(columns).from(users).where(eq(users.id, hint))
        if (byId) return byId
      }
      return undefined
    },

    /** the stored row's status and the creation time of the event that wrote it */
    async storedSubscription (subscriptionId: string) {
      const [row] = await db.select({ status: subscriptions.status, eventCreated: subscriptions.eventCreated })
        .from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, subscriptionId))
      return row
    },

    async isRecorded (eventId: string): Promise<boolean> {
      const [seen] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, eventId))
      return seen !== undefined
    },

    /**
     * In one transaction: the event is recorded, the user linked to the customer, and the row written
     * unless the subscription rules keep the stored one. False when the event was recorded already.
     */
    async saveSubscription (event: WebhookEvent, sub: SubscriptionState, owner: Owner): Promise<boolean> {
      return await db.transaction(async (tx) => {
        if (!await recordEvent(event, tx)) return false
        if (sub.customerId && !owner.stripeCustomerId) {
          await tx.update(users).set({ stripeCustomerId: sub.customerId })
            .where(and(eq(users.id, owner.id), isNull(users.stripeCustomerId)))
        }
        await tx.insert(subscriptions).values({
          stripeSubscriptionId: sub.id,
          userId: owner.id,
          stripeCustomerId: sub.customerId ?? null,
          status: sub.status,
          priceId: sub.priceId,
          currentPeriodEnd: sub.currentPeriodEnd,
          eventCreated: event.created,
          updatedAt: new Date(now())
        }).onConflictDoUpdate({
          target: subscriptions.stripeSubscriptionId,
          set: {
            status: sql`excluded.status`,
            priceId: sql`excluded.price_id`,
            currentPeriodEnd: sql`excluded.current_period_end`,
            stripeCustomerId: sql`coalesce(excluded.stripe_customer_id, ${subscriptions.stripeCustomerId})`,
            eventCreated: sql`excluded.event_created`,
            updatedAt: sql`excluded.updated_at`
          },
          // the rule of keepsStoredRow in the statement itself, so that concurrent events cannot race
          setWhere: replacesStoredRowSql({ status: sql`excluded.status`, eventCreated: sql`excluded.event_created` })
        })
        return true
      })
    }
  }
}

export type BillingQueries = ReturnType<typeof billingQueries>
