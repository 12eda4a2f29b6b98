// Webhook events: what a delivery's body holds (docs/integration.md, Webhooks). Every delivery is
// `POST <endpoint url>` with the body {type, timestamp, data} and the Standard Webhooks headers
// webhook-id, webhook-timestamp and webhook-signature. WEBHOOK_EVENTS names every event with its
// body's schema: the OpenAPI document lists them under `webhooks`.
import { Type, type Static, type TSchema } from '@sinclair/typebox'

export const WEBHOOK_EVENT_TYPES = ['report.ready', 'report.failed', 'webhook.test'] as const
export const WebhookEventTypeSchema = Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)), { title: 'WebhookEventType', description: 'an event a webhook endpoint can subscribe to' })
export type WebhookEventType = Static<typeof WebhookEventTypeSchema>

/** the body of a delivery of event `type` whose data is `data` */
function eventBody<T extends TSchema> (type: WebhookEventType, title: string, data: T, description: string) {
  return Type.Object({
    type: Type.Literal(type),
    timestamp: Type.String({ format: 'date-time', description: 'when the event happened (the same on every attempt)' }),
    data
  }, { title, description })
}

export const ReportReadyEventSchema = eventBody('report.ready', 'ReportReadyEvent', Type.Object({
  reportId: Type.String({ format: 'uuid' }),
  generatedAt: Type.String({ format: 'date-time' })
}), 'a report finished generating: GET /report/{reportId} serves it')

export const ReportFailedEventSchema = eventBody('report.failed', 'ReportFailedEvent', Type.Object({
  reportId: Type.String({ format: 'uuid' })
}), 'a report failed to generate (its credit was given back)')

export const WebhookTestEventSchema = eventBody('webhook.test', 'WebhookTestEvent', Type.Object({
  webhookId: Type.String({ format: 'uuid' })
}), 'sent by POST /webhooks/{id}/test')

export const WEBHOOK_EVENTS: Record<WebhookEventType, TSchema> = {
  'report.ready': ReportReadyEventSchema,
  'report.failed': ReportFailedEventSchema,
  'webhook.test': WebhookTestEventSchema
}
