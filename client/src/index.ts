// The service's typed client: generated types (schema.d.ts), the fetch client and the SSE helper.
export type { paths, components, operations } from './schema.d.ts'
export { createApiClient, ApiError, type ApiClient, type ApiClientOptions, type SignInResult } from './client.ts'
export { followReport, parseEventStream, type FollowOptions, type FollowResult, type ReportEvent, type SseDone, type SseEnd, type SseStatus } from './sse.ts'
