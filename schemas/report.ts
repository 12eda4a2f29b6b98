// Report shapes: ReportItem and its parts (docs/architecture.md, Report computation) and the bodies
// of /report (docs/architecture.md, HTTP contract).
// The engine's output objects are typed by these, so a report stored as JSON is exactly what is served.
// Engine-produced shapes refuse unknown properties: a stray field (e.g. `follows` leaking into
// topInterests) then fails Value.Check in the tests instead of silently shipping.
import { Type, type Static } from '@sinclair/typebox'
import { SourceSchema } from './common.ts'

const closed = { additionalProperties: false } as const
const IsoDate = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp' })

export const FollowerSchema = Type.Object({
  image: Type.String({ description: "account image URL; '' when none" }),
  id: Type.String(),
  username: Type.String(),
  fullname: Type.String(),
  imageNotLoaded: Type.Boolean({ description: 'true when the account has no image' })
}, { ...closed, title: 'Follower' })
export type Follower = Static<typeof FollowerSchema>

export const InterestSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  share: Type.Number({ description: 'w(i) / total for the month' }),
  relative: Type.Number({ description: 'share / the largest share of the month' }),
  unactive: Type.Boolean({ description: 'true when the interest is not in the current month (diffs only)' }),
  category: Type.Optional(Type.String({ description: 'red-flag bucket label, else the non-synthetic parent category name' })),
  source: SourceSchema,
  follows: Type.Optional(Type.Array(FollowerSchema, { maxItems: 3, description: 'only on interests inside a category' })),
  redCatId: Type.Optional(Type.String({ description: 'red-flag bucket id; only on red-flag interests inside a category' }))
}, { ...closed, title: 'Interest' })
export type Interest = Static<typeof InterestSchema>

export const CategorySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  share: Type.Number({ description: "sum of its interests' shares" }),
  relative: Type.Number({ description: 'share / the largest category share' }),
  unactive: Type.Boolean(),
  category: Type.Optional(Type.String()),
  source: SourceSchema,
  interests: Type.Array(InterestSchema)
}, { ...closed, title: 'Category' })
export type Category = Static<typeof CategorySchema>

export const SourceProfileSchema = Type.Object({
  image: Type.String(),
  id: Type.String(),
  username: Type.String(),
  fullname: Type.String(),
  imageNotLoaded: Type.Boolean(),
  source: SourceSchema,
  link: Type.String()
}, { ...closed, title: 'SourceProfile' })
export type SourceProfile = Static<typeof SourceProfileSchema>

// A friend is a source profile plus the two counts the friends lists are sorted by.
export const FriendSchema = Type.Composite([SourceProfileSchema, Type.Object({
  count: Type.Integer({ minimum: 0, description: 'interests in common with the report profile' }),
  redFlagsCount: Type.Integer({ minimum: 0, description: "red-flag interests among the friend's interests" })
})], { ...closed, title: 'Friend' })
export type Friend = Static<typeof FriendSchema>

export const FriendsSchema = Type.Object({
  items: Type.Array(FriendSchema),
  hasMore: Type.Boolean(),
  total: Type.Integer({ minimum: 0 }),
  sourceProfile: SourceProfileSchema,
  sortByRedFlagsDefault: Type.Boolean(),
  sortByRedFlags: Type.Boolean({ description: 'sort order used for this page' }),
  hasCommonInterests: Type.Boolean(),
  hasRedFlags: Type.Boolean(),
  sortByRedFlagsAdjusted: Type.Optional(Type.Boolean({ description: 'present on offset-0 pages only' })),
  availableSources: Type.Array(SourceSchema)
}, { ...closed, title: 'Friends' })
export type Friends = Static<typeof FriendsSchema>

// GET /report/{id}/friends/{friendId}: one friend and the interests behind its two counts. The lists
// are absent for a report generated before reports kept them
// (docs/decisions/reports-and-streams.md, Friend detail).
export const FriendDetailSchema = Type.Object({
  friend: FriendSchema,
  common: Type.Optional(Type.Array(InterestSchema, {
    description: "the report profile's current interests the friend also has (count of them), with the profile's share, relative and badge, in the report's interest order"
  })),
  redFlags: Type.Optional(Type.Array(InterestSchema, {
    description: "the friend's current red-flag interests (redFlagsCount of them), with the friend's own share and relative, the red-flag label as category"
  }))
}, { ...closed, title: 'FriendDetail' })
export type FriendDetail = Static<typeof FriendDetailSchema>

export const DiffItemSchema = Type.Object({
  date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'month, YYYY-MM' }),
  new: Type.Array(InterestSchema),
  lost: Type.Array(InterestSchema),
  totalNew: Type.Integer({ minimum: 0 }),
  totalLost: Type.Integer({ minimum: 0 })
}, { ...closed, title: 'DiffItem' })
export type DiffItem = Static<typeof DiffItemSchema>

export const InterestDiffsSchema = Type.Object({ items: Type.Array(DiffItemSchema) }, { ...closed, title: 'InterestDiffs' })
export type InterestDiffs = Static<typeof InterestDiffsSchema>

export const ReportItemSchema = Type.Object({
  image: Type.String(),
  id: Type.String(),
  username: Type.String(),
  fullname: Type.String(),
  imageNotLoaded: Type.Boolean(),
  source: SourceSchema,
  link: Type.String(),
  categoriesCount: Type.Integer({ minimum: 0 }),
  categories: Type.Optional(Type.Array(CategorySchema, { description: 'the tree cut to its first 8 interests' })),
  totalInterests: Type.Integer({ minimum: 0 }),
  topInterests: Type.Array(InterestSchema, { maxItems: 10 }),
  friends: FriendsSchema,
  redFlags: Type.Optional(Type.Array(InterestSchema)),
  interestDiffs: Type.Optional(InterestDiffsSchema)
}, { ...closed, title: 'ReportItem' })
export type ReportItem = Static<typeof ReportItemSchema>

// ------------------------------------------------------------------ API bodies (HTTP contract)

export const REPORT_STATUSES = ['draft', 'queued', 'generating', 'ready', 'failed'] as const
export const ReportStatusSchema = Type.Union(REPORT_STATUSES.map((s) => Type.Literal(s)), { title: 'ReportStatus' })
export type ReportStatus = Static<typeof ReportStatusSchema>

export const CreateReportBodySchema = Type.Object({
  profiles: Type.Array(Type.Object({
    source: SourceSchema,
    username: Type.String({ minLength: 1, maxLength: 100 })
  }, closed), { minItems: 1, maxItems: 5, description: 'at most one profile per source' })
}, { title: 'CreateReportBody', ...closed, examples: [{ profiles: [{ source: 'ig', username: 'jdoe' }] }] })
export type CreateReportBody = Static<typeof CreateReportBodySchema>

export const ReportProfileSchema = Type.Object({
  source: SourceSchema,
  username: Type.String(),
  fullname: Type.String(),
  image: Type.Union([Type.String(), Type.Null()])
}, { title: 'ReportProfile' })
export type ReportProfile = Static<typeof ReportProfileSchema>

export const ReportSummarySchema = Type.Object({
  id: Type.String(),
  status: ReportStatusSchema,
  createdAt: IsoDate,
  generatedAt: Type.Union([IsoDate, Type.Null()]),
  profiles: Type.Array(ReportProfileSchema)
}, { title: 'ReportSummary' })
export type ReportSummary = Static<typeof ReportSummarySchema>

// 201 of POST /report: a fresh draft has never been generated, hence no generatedAt.
export const CreatedReportSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal('draft'),
  createdAt: IsoDate,
  profiles: Type.Array(ReportProfileSchema)
}, { title: 'CreatedReport' })
export type CreatedReport = Static<typeof CreatedReportSchema>

export const GenerateReportResponseSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal('queued')
}, { title: 'GenerateReportResponse' })
export type GenerateReportResponse = Static<typeof GenerateReportResponseSchema>

export const ReportListSchema = Type.Object({
  items: Type.Array(ReportSummarySchema),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'ReportList' })
export type ReportList = Static<typeof ReportListSchema>

export const ReportSchema = Type.Object({
  id: Type.String(),
  status: ReportStatusSchema,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  createdAt: IsoDate,
  generatedAt: Type.Union([IsoDate, Type.Null()]),
  items: Type.Array(ReportItemSchema, { description: 'in source order ig, fb, tt, tw, li; empty until ready' })
}, { title: 'Report' })
export type Report = Static<typeof ReportSchema>

export const InterestsResponseSchema = Type.Object({
  source: SourceSchema,
  items: Type.Array(CategorySchema, { description: 'the categories in display order: every one, or the page asked for' }),
  total: Type.Integer({ minimum: 0, description: 'the categories of the whole tree' }),
  hasMore: Type.Boolean()
}, { title: 'InterestsResponse' })
export type InterestsResponse = Static<typeof InterestsResponseSchema>

export const DiffsResponseSchema = Type.Object({
  items: Type.Array(DiffItemSchema, { description: 'newest month first, full new/lost lists' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'DiffsResponse' })
export type DiffsResponse = Static<typeof DiffsResponseSchema>

// ------------------------------------------------------------------ query strings
// offset/limit are optional for the client; Fastify's Ajv (useDefaults) fills the defaults in.

const Offset = Type.Optional(Type.Integer({ minimum: 0, default: 0 }))
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }))
const SourceParam = Type.Optional(SourceSchema)

export const SourceQuerySchema = Type.Object({ source: SourceParam }, closed)
export type SourceQuery = Static<typeof SourceQuerySchema>

export const FriendsQuerySchema = Type.Object({
  source: SourceParam,
  sortByRedFlags: Type.Optional(Type.Boolean({ description: 'default: sortByRedFlagsDefault' })),
  offset: Offset,
  limit: Limit
}, closed)
export type FriendsQuery = Static<typeof FriendsQuerySchema>

// The interests are the whole tree unless a page is asked for (the interface specification's
// "complete tree"): offset and limit have no default here, and page its categories when given.
export const InterestsQuerySchema = Type.Object({
  source: SourceParam,
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'the first category of the page (default 0)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'categories in the page (default: every one)' }))
}, closed)
export type InterestsQuery = Static<typeof InterestsQuerySchema>

export const DiffsQuerySchema = Type.Object({ source: SourceParam, offset: Offset, limit: Limit }, closed)
export type DiffsQuery = Static<typeof DiffsQuerySchema>
