// GET /profiles: the dashboard's search box over the profile data (read-only).
import { Type, type Static } from '@sinclair/typebox'
import { SourceSchema } from './common.ts'

export const ProfileSearchQuerySchema = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'part of a username or full name, case-insensitive' }),
  source: Type.Optional(SourceSchema),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 }))
}, { additionalProperties: false, examples: [{ q: 'jdoe', source: 'ig', offset: 0, limit: 10 }] })
export type ProfileSearchQuery = Static<typeof ProfileSearchQuerySchema>

export const ProfileHitSchema = Type.Object({
  source: SourceSchema,
  username: Type.String(),
  fullname: Type.String(),
  image: Type.Union([Type.String(), Type.Null()], { description: 'null when the profile has no image' }),
  link: Type.String()
}, { title: 'ProfileHit' })
export type ProfileHit = Static<typeof ProfileHitSchema>

export const ProfileSearchResultSchema = Type.Object({
  items: Type.Array(ProfileHitSchema, { description: 'exact username or full-name matches first, then by username' }),
  hasMore: Type.Boolean({ description: 'a next page has matches (a search counts no total: it stops at the page)' })
}, { title: 'ProfileSearchResult' })
export type ProfileSearchResult = Static<typeof ProfileSearchResultSchema>
