// Webhook events written as deliveries inside the transaction of the change that causes them
// (docs/decisions/programs.md, Webhooks): one delivery per enabled endpoint of the user subscribed
// to the event, due at once (the first step of the retry schedule). If the transaction rolls back,
// no delivery exists; once it commits, the delivery workers find it
// (src/services/webhooks/delivery.ts).
import { and, arrayContains, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts'
import type { WebhookEventType } from '../../../schemas/webhooks.ts'
import type { Alert } from '../../../schemas/alerts.ts'

export interface EventData {
  'report.ready': { reportId: string, generatedAt: string }
  'report.failed': { reportId: string }
  'watch.alert': Alert
  'webhook.test': { webhookId: string }
}

/** the exact bytes every attempt of a delivery sends and signs */
export function eventBody<T extends WebhookEventType> (type: T, data: EventData[T], at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data })
}

/** the first attempt's due time: the schedule's first step after creation (the database's clock) */
export const firstAttemptAt = (scheduleS: number[]) => sql`now() + ${scheduleS[0] ?? 0} * interval '1 second'`

/**
 * Record `type` for every enabled endpoint of `userId` subscribed to it, in the caller's transaction.
 * Returns the deliveries' ids.
 */
export async function recordEvent<T extends Exclude<WebhookEventType, 'webhook.test'>> (
  tx: Db, userId: string, type: T, data: EventData[T], at: Date, scheduleS: number[]
): Promise<string[]> {
  const endpoints = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), isNull(webhookEndpoints.disabledAt), arrayContains(webhookEndpoints.events, [type])))
  if (endpoints.length === 0) return []
  const body = eventBody(type, data, at)
  const rows = await tx.insert(webhookDeliveries)
    .values(endpoints.map((e) => ({ endpointId: e.id, type, body, nextAttemptAt: firstAttemptAt(scheduleS) })))
    .returning({ id: webhookDeliveries.id })
  return rows.map((r) => r.id)
}
