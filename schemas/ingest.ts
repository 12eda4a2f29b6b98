// Profile data records (docs/architecture.md, Profile data and ingest): one NDJSON line each, one schema per record type, and the answer
// of POST /ingest.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { SourceSchema } from './common.ts'

// Caps that keep one line small and every value storable: ids and usernames 200, names 500, URLs 2048.
export const INGEST_LIMITS = {
  id: 200,
  name: 500,
  url: 2048,
  accountInterests: 1000,
  /** bytes of one line, newline excluded */
  lineBytes: 1024 * 1024
} as const

export const RECORD_TYPES = ['category', 'redflag', 'interest', 'account', 'profile', 'follow', 'friend'] as const
export type RecordType = typeof RECORD_TYPES[number]

const Id = Type.String({ minLength: 1, maxLength: INGEST_LIMITS.id })
const Name = Type.String({ minLength: 1, maxLength: INGEST_LIMITS.name })
const Username = Type.String({ minLength: 1, maxLength: INGEST_LIMITS.id })
// Some pages have no display name: empty is allowed.
const Fullname = Type.String({ maxLength: INGEST_LIMITS.name })
// Only web links: a report page renders them as hrefs and image sources.
const Url = Type.String({ minLength: 1, maxLength: INGEST_LIMITS.url, pattern: '^https?://[^\\s]+$', description: 'an http(s) URL' })
// A real calendar date is checked beyond the pattern (a 30th of February matches it).
const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a date YYYY-MM-DD' })
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Optional(Type.Union([s, Type.Null()]))

const strict = { additionalProperties: false }

export const CategoryRecordSchema = Type.Object({
  type: Type.Literal('category'),
  id: Id,
  name: Name,
  synthetic: Type.Boolean()
}, { ...strict, title: 'CategoryRecord' })

export const RedFlagRecordSchema = Type.Object({
  type: Type.Literal('redflag'),
  id: Id,
  label: Name
}, { ...strict, title: 'RedFlagRecord' })

export const InterestRecordSchema = Type.Object({
  type: Type.Literal('interest'),
  id: Id,
  name: Name,
  categoryId: Id,
  redFlagId: Nullable(Id)
}, { ...strict, title: 'InterestRecord' })

export const AccountRecordSchema = Type.Object({
  type: Type.Literal('account'),
  id: Id,
  source: SourceSchema,
  username: Username,
  fullname: Fullname,
  image: Nullable(Url),
  interests: Type.Array(Id, { maxItems: INGEST_LIMITS.accountInterests, uniqueItems: true })
}, { ...strict, title: 'AccountRecord' })

export const ProfileRecordSchema = Type.Object({
  type: Type.Literal('profile'),
  id: Id,
  source: SourceSchema,
  username: Username,
  fullname: Fullname,
  image: Nullable(Url),
  link: Url
}, { ...strict, title: 'ProfileRecord' })

export const FollowRecordSchema = Type.Object({
  type: Type.Literal('follow'),
  profileId: Id,
  accountId: Id,
  since: DateString,
  until: Nullable(DateString)
}, { ...strict, title: 'FollowRecord' })

export const FriendRecordSchema = Type.Object({
  type: Type.Literal('friend'),
  a: Id,
  b: Id
}, { ...strict, title: 'FriendRecord' })

export const INGEST_RECORD_SCHEMAS = {
  category: CategoryRecordSchema,
  redflag: RedFlagRecordSchema,
  interest: InterestRecordSchema,
  account: AccountRecordSchema,
  profile: ProfileRecordSchema,
  follow: FollowRecordSchema,
  friend: FriendRecordSchema
} as const

export type CategoryRecord = Static<typeof CategoryRecordSchema>
export type RedFlagRecord = Static<typeof RedFlagRecordSchema>
export type InterestRecord = Static<typeof InterestRecordSchema>
export type AccountRecord = Static<typeof AccountRecordSchema>
export type ProfileRecord = Static<typeof ProfileRecordSchema>
export type FollowRecord = Static<typeof FollowRecordSchema>
export type FriendRecord = Static<typeof FriendRecordSchema>
export type IngestRecord = CategoryRecord | RedFlagRecord | InterestRecord | AccountRecord | ProfileRecord | FollowRecord | FriendRecord

const Count = Type.Integer({ minimum: 0 })

export const IngestQuerySchema = Type.Object({
  skipInvalid: Type.Boolean({ default: false, description: 'import the valid lines and list the invalid ones' })
}, { additionalProperties: false })

export const IngestLineErrorSchema = Type.Object({
  line: Type.Integer({ minimum: 1 }),
  reason: Type.String()
}, { title: 'IngestLineError' })
export type IngestLineError = Static<typeof IngestLineErrorSchema>

const TallySchema = Type.Object({
  inserted: Type.Integer({ minimum: 0, description: 'keys new to the database' }),
  updated: Type.Integer({ minimum: 0, description: 'keys whose stored values changed' }),
  unchanged: Type.Integer({ minimum: 0, description: 'keys already stored with these values' })
}, { title: 'Tally', additionalProperties: false })
export type IngestTally = Static<typeof TallySchema>

const perType = <T extends TSchema>(s: T) => Type.Object({
  category: s, redflag: s, interest: s, account: s, profile: s, follow: s, friend: s
}, { additionalProperties: false })

export const IngestResultSchema = Type.Object({
  imported: perType(Count),
  summary: perType(TallySchema),
  replaced: Type.Integer({ minimum: 0, description: 'records replaced by a later record of the same key in the input (the last one wins)' }),
  invalid: Type.Integer({ minimum: 0, description: 'number of invalid lines (skipped)' }),
  errors: Type.Array(IngestLineErrorSchema, { maxItems: 20, description: 'the first invalid lines, in line order' })
}, { title: 'IngestResult',
  description: '`imported`: records written per type, one per key (an account\'s interests included); ' +
    '`summary`: what that did to the database per type.',
  examples: [{
    imported: { category: 1, redflag: 1, interest: 1, account: 1, profile: 2, follow: 1, friend: 1 },
    summary: {
      category: { inserted: 1, updated: 0, unchanged: 0 },
      redflag: { inserted: 0, updated: 0, unchanged: 1 },
      interest: { inserted: 1, updated: 0, unchanged: 0 },
      account: { inserted: 0, updated: 1, unchanged: 0 },
      profile: { inserted: 1, updated: 0, unchanged: 1 },
      follow: { inserted: 0, updated: 1, unchanged: 0 },
      friend: { inserted: 1, updated: 0, unchanged: 0 }
    },
    replaced: 2,
    invalid: 0,
    errors: []
  }]
})
export type IngestResult = Static<typeof IngestResultSchema>
