// Webhook events: what a delivery's body holds (docs/integration.md, Webhooks). Every delivery is
// `POST <endpoint url>` with the body {type, timestamp, data} and the Standard Webhooks headers
// webhook-id, webhook-timestamp and webhook-signature. WEBHOOK_EVENTS names every event with its
// body's schema: the OpenAPI document lists them under `webhooks`.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { AlertSchema } from './alerts.ts'

export const WEBHOOK_EVENT_TYPES = ['report.ready', 'report.failed', 'watch.alert', 'webhook.test'] as const
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

export const WatchAlertEventSchema = eventBody('watch.alert', 'WatchAlertEvent', AlertSchema,
  'a watched report\'s profile changed in a month: the alert, as GET /alerts lists it')

export const WebhookTestEventSchema = eventBody('webhook.test', 'WebhookTestEvent', Type.Object({
  webhookId: Type.String({ format: 'uuid' })
}), 'sent by POST /webhooks/{id}/test')

export const WEBHOOK_EVENTS: Record<WebhookEventType, TSchema> = {
  'report.ready': ReportReadyEventSchema,
  'report.failed': ReportFailedEventSchema,
  'watch.alert': WatchAlertEventSchema,
  'webhook.test': WebhookTestEventSchema
}

// ---------------------------------------------------------------- /webhooks

export const CreateWebhookBodySchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'where deliveries are POSTed; in production https, not a loopback, private or link-local address' }),
  events: Type.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'the events sent to it' })
}, { title: 'CreateWebhookBody', additionalProperties: false })

export const CreatedWebhookSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(WebhookEventTypeSchema),
  secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes: the signing secret, shown only here' }),
  createdAt: Type.String({ format: 'date-time' })
}, { title: 'CreatedWebhook' })

export const WebhookSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(WebhookEventTypeSchema),
  createdAt: Type.String({ format: 'date-time' }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'set when the endpoint answered 410 Gone, or its account was cut off (a password reset by recovery link, sign-out everywhere with apiKeys): nothing more is sent to it' })
}, { title: 'Webhook' })

export const WebhookListSchema = Type.Object({
  items: Type.Array(WebhookSchema, { description: 'oldest first' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'WebhookList' })

export const RotatedWebhookSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  secret: Type.String({ description: 'the new secret, shown only here; the previous one signs too for 24 h' })
}, { title: 'RotatedWebhook' })

export const QueuedDeliverySchema = Type.Object({
  deliveryId: Type.String({ format: 'uuid', description: 'the delivery, and the webhook-id header of its every attempt' })
}, { title: 'QueuedDelivery' })

export const WebhookDeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the webhook-id header of every attempt' }),
  type: WebhookEventTypeSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer({ minimum: 0 }),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'the HTTP status of the last attempt; null when it got no answer' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt did not deliver (a status, a timeout, a refused connection or address)' }),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { title: 'WebhookDelivery' })

export const WebhookDeliveryListSchema = Type.Object({
  items: Type.Array(WebhookDeliverySchema),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'WebhookDeliveryList' })
