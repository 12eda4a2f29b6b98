// Webhook endpoints and their delivery log (docs/decisions/programs.md, Webhooks): an account
// registers URLs for events, each with a secret shown once; rotates a secret (the previous one
// keeps signing for 24 h); sends a test event; reads what was delivered and asks for a delivery
// again. Deliveries are written here or in the transaction of the change that causes them
// (./events.ts) and sent by the delivery workers (./delivery.ts). Another account's endpoint is
// 404, as an unknown one.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { idempotencyKeys, users, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts'
import { Conflict, NotFound } from '../../errors.ts'
import { isUuid } from '../../../schemas/common.ts'
import type { WebhookEventType } from '../../../schemas/webhooks.ts'
import { eventBody, firstAttemptAt } from './events.ts'
import { newSecret } from './signing.ts'
import { endpointUrl } from './url-rules.ts'

/** endpoints one account may have (docs/decisions/programs.md, Webhooks) */
export const MAX_ENDPOINTS = 10
/** how long a rotated-out secret keeps signing */
export const PREVIOUS_SECRET_MS = 24 * 3600_000
/** test deliveries one endpoint may be sent per TEST_WINDOW_S (docs/decisions/programs.md, Webhooks) */
export const TEST_DELIVERIES_PER_WINDOW = 5
export const TEST_WINDOW_S = 60

export interface WebhookServiceDeps {
  database: Database
  /** config.webhooks: the retry schedule, and whether endpoints may be http or private addresses */
  retryScheduleS: number[]
  allowPrivate: boolean
  now?: () => number
}

const iso = (d: Date | null) => d === null ? null : d.toISOString()

export function createWebhookService (deps: WebhookServiceDeps) {
  const db = deps.database.db
  const now = () => new Date((deps.now ?? Date.now)())

  /** the caller's endpoint, else 404 */
  async function owned (userId: string, id: string) {
    const [row] = isUuid(id)
      ? await db.select({ id: webhookEndpoints.id, disabledAt: webhookEndpoints.disabledAt }).from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId)))
      : []
    if (!row) throw new NotFound('webhook not found')
    return row
  }

  function enabled (endpoint: { disabledAt: Date | null }) {
    if (endpoint.disabledAt !== null) throw new Conflict('the webhook is disabled (it answered 410 Gone, or the account\'s password was reset); delete it and create it again')
  }

  return {
    async create (userId: string, url: string, events: WebhookEventType[]) {
      const stored = endpointUrl(url, deps.allowPrivate)
      const secret = newSecret()
      const row = await db.transaction(async (tx) => {
        // the owner's row, locked: two creations at once cannot both pass the cap
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        const [{ n }] = await tx.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId))
        if (n >= MAX_ENDPOINTS) throw new Conflict(`at most ${MAX_ENDPOINTS} webhooks per account`)
        const [created] = await tx.insert(webhookEndpoints).values({ userId, url: stored, events, secret })
          .returning({ id: webhookEndpoints.id, createdAt: webhookEndpoints.createdAt })
        return created
      })
      return { id: row.id, url: stored, events, secret, createdAt: row.createdAt.toISOString() }
    },

    /** the account's endpoints, oldest first, a page of them (at most MAX_ENDPOINTS exist: paged in memory) */
    async list (userId: string, offset = 0, limit = 20) {
      const rows = await db.select({
        id: webhookEndpoints.id, url: webhookEndpoints.url, events: webhookEndpoints.events,
        createdAt: webhookEndpoints.createdAt, disabledAt: webhookEndpoints.disabledAt
      }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(webhookEndpoints.createdAt, webhookEndpoints.id)
      const page = rows.slice(offset, offset + limit)
      return {
        items: page.map((r) => ({ id: r.id, url: r.url, events: r.events as WebhookEventType[], createdAt: r.createdAt.toISOString(), disabledAt: iso(r.disabledAt) })),
        total: rows.length,
        hasMore: offset + page.length < rows.length
      }
    },

    /**
     * The endpoint and its deliveries are gone (a delivery in flight finds nothing to record), and so
     * is the stored answer of an idempotent POST /webhooks that created it: that answer holds the
     * secret, and a replay must not hand out the secret of an endpoint that no longer exists
     * (docs/decisions/programs.md, Webhooks). The answer is the 201 whose body names the endpoint's
     * id.
     */
    async remove (userId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw new NotFound('webhook not found')
      await db.transaction(async (tx) => {
        const gone = await tx.delete(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId))).returning({ id: webhookEndpoints.id })
        if (gone.length === 0) throw new NotFound('webhook not found')
        await tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.statusCode, 201),
          sql`position(${`"id":"${id}"`} in ${idempotencyKeys.body}) > 0`))
      })
    },

    /** a new secret; the current one becomes the previous and keeps signing for PREVIOUS_SECRET_MS */
    async rotate (userId: string, id: string) {
      await owned(userId, id)
      const secret = newSecret()
      await db.update(webhookEndpoints).set({
        previousSecret: sql`${webhookEndpoints.secret}`,
        previousUntil: new Date(now().getTime() + PREVIOUS_SECRET_MS),
        secret
      }).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId)))
      return { id, secret }
    },

    /**
     * A webhook.test delivery, whatever events the endpoint subscribed to; at most
     * TEST_DELIVERIES_PER_WINDOW per endpoint in TEST_WINDOW_S, counted in the table itself (every
     * instance sees the same count; the endpoint's row is locked while one is counted and written).
     * Past that: `{retryAfterS}`, the seconds until the oldest of the window leaves it.
     */
    async test (userId: string, id: string): Promise<{ deliveryId: string } | { retryAfterS: number }> {
      enabled(await owned(userId, id))
      return await db.transaction(async (tx) => {
        await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for('update')
        const [recent] = await tx.select({
          n: count(),
          wait: sql<string | null>`ceil(extract(epoch from min(${webhookDeliveries.createdAt}) + ${TEST_WINDOW_S} * interval '1 second' - now()))`
        }).from(webhookDeliveries).where(and(
          eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.type, 'webhook.test'),
          sql`${webhookDeliveries.createdAt} > now() - ${TEST_WINDOW_S} * interval '1 second'`))
        if (recent.n >= TEST_DELIVERIES_PER_WINDOW) return { retryAfterS: Math.max(1, Number(recent.wait ?? 1)) }
        const [row] = await tx.insert(webhookDeliveries).values({
          endpointId: id, type: 'webhook.test', body: eventBody('webhook.test', { webhookId: id }, now()), nextAttemptAt: firstAttemptAt(deps.retryScheduleS)
        }).returning({ id: webhookDeliveries.id })
        return { deliveryId: row.id }
      })
    },

    /** the endpoint's deliveries, newest first */
    async deliveries (userId: string, id: string, offset: number, limit: number) {
      await owned(userId, id)
      const where = eq(webhookDeliveries.endpointId, id)
      const [[{ total }], rows] = await Promise.all([
        db.select({ total: count() }).from(webhookDeliveries).where(where),
        db.select({
          id: webhookDeliveries.id, type: webhookDeliveries.type, status: webhookDeliveries.status, attempts: webhookDeliveries.attempts,
          lastStatusCode: webhookDeliveries.lastStatusCode, lastError: webhookDeliveries.lastError,
          createdAt: webhookDeliveries.createdAt, deliveredAt: webhookDeliveries.deliveredAt
        }).from(webhookDeliveries).where(where)
          .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).offset(offset).limit(limit)
      ])
      return {
        items: rows.map((r) => ({ ...r, type: r.type as WebhookEventType, createdAt: r.createdAt.toISOString(), deliveredAt: iso(r.deliveredAt) })),
        total,
        hasMore: offset + rows.length < total
      }
    },

    /**
     * A failed or pending delivery is due again now, with the same webhook-id. A failed one whose
     * schedule is spent gets one more attempt; a delivered one is 409.
     */
    async retry (userId: string, id: string, deliveryId: string) {
      enabled(await owned(userId, id))
      const [row] = isUuid(deliveryId)
        ? await db.select({ status: webhookDeliveries.status }).from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, id)))
        : []
      if (!row) throw new NotFound('delivery not found')
      const [queued] = await db.update(webhookDeliveries).set({ status: 'pending', nextAttemptAt: sql`now()` })
        .where(and(eq(webhookDeliveries.id, deliveryId), sql`${webhookDeliveries.status} <> 'delivered'`))
        .returning({ id: webhookDeliveries.id })
      if (!queued) throw new Conflict('the delivery was already delivered')
      return { deliveryId }
    }
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>
