// Compiled, not run, by test/client/webhook-types.test.ts (with the client's compiler options) and by
// `npm run typecheck`: what verifyWebhook's type lets a receiver write. Each `@ts-expect-error` is a
// field the type must refuse; were it accepted, the directive itself would be the error.
import { verifyWebhook, type WebhookEvent, type WebhookEventType } from '../../client/src/index.ts'

/** a line for each event: `switch (event.type)` narrows `event.data` */
export function describeEvent (event: WebhookEvent): string {
  switch (event.type) {
    case 'report.ready':
      return `report ${event.data.reportId} ready at ${event.data.generatedAt}`
    case 'report.failed':
      // @ts-expect-error a failed report has no generatedAt
      return `report ${event.data.reportId} failed at ${event.data.generatedAt}`
    case 'watch.alert':
      return `${event.data.username} on ${event.data.source}: ${event.data.newRedFlags.length} new red flags in ${event.data.month}`
    case 'webhook.test':
      return `a test of ${event.data.webhookId}`
    default: {
      // every event is a case above: a new one fails to compile here
      const unhandled: never = event
      return unhandled
    }
  }
}

export function receive (secret: string, headers: Headers, body: string): string {
  const event = verifyWebhook(secret, headers, body)
  const type: WebhookEventType = event.type
  // @ts-expect-error before narrowing, data has only what every event shares
  const id: string = event.data.webhookId
  if (event.type === 'webhook.test') return `${type} ${event.data.webhookId} ${id}`
  // @ts-expect-error an event type the document does not list
  if (event.type === 'report.deleted') return type
  return describeEvent(event)
}
