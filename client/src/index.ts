// The service's typed client: generated types (schema.d.ts), the fetch client, the SSE helper and
// the webhook signature check.
export type { paths, components, operations } from './schema.d.ts'
export { createApiClient, ApiError, type ApiClient, type ApiClientOptions, type SignInResult } from './client.ts'
export { followReport, parseEventStream, type FollowOptions, type FollowResult, type ReportEvent, type SseDone, type SseEnd, type SseStatus } from './sse.ts'
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookEvent, type WebhookEventType, type WebhookPayload, type WebhookVerificationReason } from './webhook.ts'
