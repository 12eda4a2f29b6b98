// Watches and alerts (docs/integration.md, Watches and alerts): a watch on a ready report, and the
// alerts its profiles' later months raise, read by GET /alerts, the user's stream GET /sse/alerts,
// the watch.alert webhook and the digest mail.
import { Type, type Static } from '@sinclair/typebox'
import { SourceSchema } from './common.ts'
import { InterestSchema } from './report.ts'

const IsoDate = Type.String({ format: 'date-time' })

export const WatchSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  reportId: Type.String({ format: 'uuid' }),
  createdAt: IsoDate
}, { title: 'Watch', additionalProperties: false })
export type Watch = Static<typeof WatchSchema>

export const WatchListSchema = Type.Object({
  items: Type.Array(WatchSchema, { description: 'newest first' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean(),
  limit: Type.Integer({ minimum: 0, description: 'the watches this user may hold now (WATCH_MAX, or WATCH_MAX_SUBSCRIBED with an active subscription)' })
}, { title: 'WatchList', additionalProperties: false })

export const AlertSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  reportId: Type.String({ format: 'uuid' }),
  source: SourceSchema,
  username: Type.String({ description: "the watched profile's username on `source`" }),
  month: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'the month that changed, YYYY-MM' }),
  new: Type.Array(InterestSchema, { description: "the month's new interests, as GET /report/{id}/diffs gives them" }),
  lost: Type.Array(InterestSchema, { description: "the month's lost interests" }),
  newRedFlags: Type.Array(InterestSchema, { description: 'the new interests that have a red-flag bucket' }),
  createdAt: IsoDate,
  read: Type.Boolean()
}, { title: 'Alert', additionalProperties: false })
export type Alert = Static<typeof AlertSchema>

export const AlertListSchema = Type.Object({
  items: Type.Array(AlertSchema, { description: 'newest first' }),
  total: Type.Integer({ minimum: 0, description: 'alerts that match the query' }),
  hasMore: Type.Boolean(),
  unread: Type.Integer({ minimum: 0, description: "the user's unread alerts, whatever the query" })
}, { title: 'AlertList', additionalProperties: false })

export const AlertListQuerySchema = Type.Object({
  unread: Type.Optional(Type.Boolean({ description: 'true: only unread alerts' })),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 })
}, { additionalProperties: false })

export const AlertsReadSchema = Type.Object({
  read: Type.Integer({ minimum: 0, description: 'the alerts this call marked read' }),
  unread: Type.Integer({ minimum: 0, description: "the user's unread alerts after it: 0, unless an alert was raised meanwhile" })
}, { title: 'AlertsRead', additionalProperties: false })
