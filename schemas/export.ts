// GET /report/{id}/export: a ready report as a file (docs/decisions/accounts.md, Export).
import { Type, type Static } from '@sinclair/typebox'
import { SourceSchema } from './common.ts'
import { CategorySchema, DiffItemSchema, FriendSchema, ReportSchema } from './report.ts'

const closed = { additionalProperties: false } as const

export const EXPORT_FORMATS = ['json', 'csv'] as const
export const EXPORT_PARTS = ['interests', 'friends'] as const

const PartSchema = Type.Union(EXPORT_PARTS.map((p) => Type.Literal(p)), {
  description: 'CSV only: interests (default, one row per source and interest) or friends (one row per source and friend)'
})
export type ExportPart = Static<typeof PartSchema>

export const ExportQuerySchema = Type.Object({
  format: Type.Optional(Type.Union(EXPORT_FORMATS.map((f) => Type.Literal(f)), {
    default: 'json',
    description: 'json (the whole report), or csv: what GET /report/{id}/export.csv answers, with the same part'
  })),
  part: Type.Optional(PartSchema)
}, closed)
export type ExportQuery = Static<typeof ExportQuerySchema>

/** GET /report/{id}/export.csv: the CSV export on its own, so that its 200 is text/csv alone */
export const ExportCsvQuerySchema = Type.Object({ part: Type.Optional(PartSchema) }, closed)

/** everything a ready report stores for one of its profiles, unpaged and untruncated */
export const ReportDetailSchema = Type.Object({
  source: SourceSchema,
  interests: Type.Array(CategorySchema, { description: 'the full category tree (GET /report/{id}/interests)' }),
  friends: Type.Object({
    common: Type.Array(FriendSchema, { description: 'every friend with common interests, in the common-interests order' }),
    redFlags: Type.Array(FriendSchema, { description: 'every friend with red flags, in the red-flags order' })
  }, closed),
  diffs: Type.Array(DiffItemSchema, { description: 'every month with a change, newest first, full new/lost lists (GET /report/{id}/diffs)' })
}, { ...closed, title: 'ReportDetail' })
export type ReportDetail = Static<typeof ReportDetailSchema>

export const ReportExportSchema = Type.Composite([ReportSchema, Type.Object({
  details: Type.Array(ReportDetailSchema, { description: 'one per profile, in the order of items' })
})], { title: 'ReportExport' })
export type ReportExport = Static<typeof ReportExportSchema>
