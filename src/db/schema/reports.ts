// The tables of reports. Change a table here, then `npm run db:generate`.
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt, writtenBy } from './columns.ts'
import { users } from './accounts.ts'

export const reports = pgTable('reports', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  status: text('status', { enum: ['draft', 'queued', 'generating', 'ready', 'failed'] }).notNull().default('draft'),
  progress: integer('progress').notNull().default(0),
  stage: text('stage'),
  // [{source, profileId, username, fullname, image}] in source order
  profiles: jsonb('profiles').notNull(),
  // true while a generate call's credit is held by this report (refunded if every attempt fails)
  creditHeld: boolean('credit_held').notNull().default(false),
  // the pg-boss job of the current generate call: re-sending it after a crash is a no-op
  jobId: uuid('job_id'),
  // the finished report JSON, stored once at generation and served as bytes, with its ETag
  body: text('body'),
  // per source: the full category tree, friend lists and diffs, paged by the report endpoints
  details: jsonb('details'),
  etag: text('etag'),
  error: text('error'),
  createdAt: createdAt(),
  generatedAt: timestamp('generated_at', { withTimezone: true })
}, (t) => [index('reports_user_created_idx').on(t.userId, t.createdAt)])

export const reportEvents = pgTable('report_events', {
  reportId: uuid('report_id').notNull().references(() => reports.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  kind: text('kind').notNull(),
  data: jsonb('data').notNull(),
  createdAt: createdAt()
}, (t) => [primaryKey({ columns: [t.reportId, t.seq] })])

// Deleted reports, written by the reports table's trigger in the deleting transaction (as
// session_revocations is for sessions): every instance reads the deletions committed since its last
// read and ends those reports' open streams, so a lost report_deleted NOTIFY costs at most
// SESSION_RECONCILE_S (src/services/streams/deleted-reports.ts). Pruned after JWT_TTL.
export const reportDeletions = pgTable('report_deletions', {
  reportId: uuid('report_id').primaryKey(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull().defaultNow(),
  txid: writtenBy()
}, (t) => [index('report_deletions_deleted_idx').on(t.deletedAt), index('report_deletions_txid_idx').on(t.txid)])
