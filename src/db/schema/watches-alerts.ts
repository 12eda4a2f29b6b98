// The tables of watches and alerts. Change a table here, then `npm run db:generate`.
import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.ts'
import { users } from './accounts.ts'
import { reports } from './reports.ts'

// A watch on a ready report (one per report): later months of its profiles' data raise alerts
// (docs/decisions/watches-and-alerts.md, Watches and alerts).
export const watches = pgTable('watches', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  reportId: uuid('report_id').notNull().unique().references(() => reports.id, { onDelete: 'cascade' }),
  createdAt: createdAt()
}, (t) => [index('watches_user_created_idx').on(t.userId, t.createdAt)])

// One row per (watch, source): the report's profile on that source and the latest month of its data
// the watch has accounted for (a month number, year * 12 + month - 1, as the engine counts).
export const watchProfiles = pgTable('watch_profiles', {
  watchId: uuid('watch_id').notNull().references(() => watches.id, { onDelete: 'cascade' }),
  source: text('source').notNull(),
  profileId: text('profile_id').notNull(),
  seenMonth: integer('seen_month').notNull()
}, (t) => [primaryKey({ columns: [t.watchId, t.source] }), index('watch_profiles_profile_idx').on(t.profileId)])

// Watched profiles whose data changed, written in the transaction that changed it: the alert
// worker's queue. A claim is a lease (leased_until); `version` moves on with every further change, so a
// batch removes only the rows it computed.
export const alertPending = pgTable('alert_pending', {
  profileId: text('profile_id').primaryKey(),
  version: integer('version').notNull().default(1),
  leasedUntil: timestamp('leased_until', { withTimezone: true }),
  createdAt: createdAt()
}, (t) => [index('alert_pending_leased_idx').on(t.leasedUntil)])

// An alert: one month of a watched profile's new and lost interests, raised once per (watch, source,
// month). `seq` orders a user's alerts for the stream's ids and resumption (alert_sequences).
export const alerts = pgTable('alerts', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  watchId: uuid('watch_id').references(() => watches.id, { onDelete: 'set null' }),
  reportId: uuid('report_id').notNull().references(() => reports.id, { onDelete: 'cascade' }),
  source: text('source').notNull(),
  profileId: text('profile_id').notNull(),
  username: text('username').notNull(),
  // YYYY-MM
  month: text('month').notNull(),
  new: jsonb('new').notNull(),
  lost: jsonb('lost').notNull(),
  newRedFlags: jsonb('new_red_flags').notNull(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  createdAt: createdAt(),
  readAt: timestamp('read_at', { withTimezone: true }),
  // set when a digest mail listed it
  mailedAt: timestamp('mailed_at', { withTimezone: true })
}, (t) => [uniqueIndex('alerts_watch_source_month_idx').on(t.watchId, t.source, t.month),
  uniqueIndex('alerts_user_seq_idx').on(t.userId, t.seq),
  index('alerts_report_idx').on(t.reportId),
  index('alerts_unread_idx').on(t.userId).where(sql`${t.readAt} is null`),
  // the digest's pass finds the users with alerts no digest has listed yet
  index('alerts_unmailed_idx').on(t.userId).where(sql`${t.mailedAt} is null`)])

// The last `seq` given to each user's alerts: taken with the row locked, so a user's alerts commit in
// the order of their seq and a stream resumed after seq N misses none.
export const alertSequences = pgTable('alert_sequences', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  seq: bigint('seq', { mode: 'number' }).notNull().default(0)
})

// The digest mail: when the last one went to the user, and whether the user unsubscribed (by the
// mail's signed link or the account page).
export const alertMail = pgTable('alert_mail', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  lastSentAt: timestamp('last_sent_at', { withTimezone: true }),
  unsubscribedAt: timestamp('unsubscribed_at', { withTimezone: true })
})
