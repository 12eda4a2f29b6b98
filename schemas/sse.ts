// The events of GET /sse/{reportId} (docs/architecture.md, An event from ingest to stream) and of the
// user's alert stream GET /sse/alerts (docs/integration.md, Watches and alerts): their names and the JSON of their `data:` lines.
// The stream is text/event-stream, not JSON: the OpenAPI document describes each event of it with
// these (the media type's `itemSchema`, docs/decisions/programs.md, OpenAPI document for
// generators); the route and the hub type what they write with them.
import { Type, type Static } from '@sinclair/typebox'
import type { TSchema } from '@sinclair/typebox'
import { ReportStatusSchema } from './report.ts'
import { AlertSchema } from './alerts.ts'

/** what the stream's first line tells an EventSource to wait before reconnecting, in ms */
export const SSE_RETRY_MS = 3000

export const REPORT_STAGES = ['queued', 'collecting', 'interests', 'friends', 'diffs'] as const

const ReportId = Type.String({ description: 'the report\'s id' })

export const SseStatusDataSchema = Type.Object({
  reportId: ReportId,
  status: ReportStatusSchema,
  progress: Type.Integer({ minimum: 0, maximum: 100, description: 'percent done' }),
  stage: Type.Union([...REPORT_STAGES.map((s) => Type.Literal(s)), Type.Null()], { description: 'the step of the generation, null outside one' })
}, { title: 'SseStatusData', description: 'the report\'s state: sent on connect (without an id when the report has no event yet) and on each change, with `id: <seq>`' })
export type SseStatusData = Static<typeof SseStatusDataSchema>

export const SseDoneDataSchema = Type.Object({
  reportId: ReportId,
  status: Type.Union([Type.Literal('ready'), Type.Literal('failed')]),
  error: Type.Optional(Type.String({ description: 'why the generation failed' }))
}, { title: 'SseDoneData', description: 'the generation is over (`id: <seq>`); the server then ends the stream, and a reconnect with this id is answered 204' })
export type SseDoneData = Static<typeof SseDoneDataSchema>

export const SseEndDataSchema = Type.Object({
  reason: Type.Union([Type.Literal('session-ended'), Type.Literal('report-deleted'), Type.Literal('token-expired')], {
    description: 'why: the session ended (signed out, ended elsewhere, password changed, account deleted), the report was deleted, or the Bearer token expired'
  })
}, { title: 'SseEndData', description: 'the server ends the stream for a reason other than done (no id); reconnecting needs new credentials or is pointless' })
export type SseEndData = Static<typeof SseEndDataSchema>

/** event name -> the schema of its data */
export const SSE_EVENTS = {
  status: SseStatusDataSchema,
  done: SseDoneDataSchema,
  end: SseEndDataSchema
} as const
export type SseEventName = keyof typeof SSE_EVENTS
export type SseEventData<E extends SseEventName> = Static<typeof SSE_EVENTS[E]>

const FRAMING = [
  `text/event-stream (UTF-8). First \`retry: ${SSE_RETRY_MS}\` (how long an EventSource waits before reconnecting, in ms),`,
  'then events, each `id: <seq>` (absent on a first status without one and on end), `event: <name>`, `data: <JSON>` and a blank line;',
  'a `: ping` comment line every SSE_HEARTBEAT_S seconds keeps proxies from closing an idle stream.',
  'Events: `status` (the state on connect and each change), `done` (the generation is over; the stream ends after it),',
  '`end` (the server ends the stream early: the session ended, the report was deleted, the Bearer token expired).',
  'Reconnect with `Last-Event-ID: <seq>` (or ?lastEventId=) to get every event after it.'
].join(' ')

/** the 200 of the stream route: its framing in words; the OpenAPI document describes each event (`itemSchema`) from SSE_EVENTS */
export const SseStreamSchema = Type.String({ description: FRAMING })

/** the alert stream's events: each alert as it is raised, and the service's end */
export const ALERT_SSE_EVENTS = {
  alert: AlertSchema,
  end: SseEndDataSchema
} as const

const ALERT_FRAMING = [
  `text/event-stream (UTF-8). First \`retry: ${SSE_RETRY_MS}\`, then one \`alert\` event per alert raised for the user`,
  '(`id: <seq>`, the user\'s own sequence; `event: alert`; `data: <the Alert JSON>`), as it commits;',
  'a `: ping` comment line every SSE_HEARTBEAT_S seconds.',
  '`end` (no id): the service ends the stream (the session ended, the Bearer token expired).',
  'Without Last-Event-ID the stream starts with the next alert; with `Last-Event-ID: <seq>` (or ?lastEventId=)',
  'it first replays every alert of the user after it, in order.'
].join(' ')

/** the 200 of GET /sse/alerts: its framing in words; the OpenAPI document describes each event from ALERT_SSE_EVENTS */
export const AlertStreamSchema = Type.String({ description: ALERT_FRAMING })

/** each stream's 200 schema -> its events, for the OpenAPI document's `itemSchema` */
export const SSE_STREAMS: ReadonlyMap<TSchema, Readonly<Record<string, TSchema>>> = new Map<TSchema, Readonly<Record<string, TSchema>>>([
  [SseStreamSchema, SSE_EVENTS],
  [AlertStreamSchema, ALERT_SSE_EVENTS]
])
