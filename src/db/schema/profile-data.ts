// The tables of profile data (ingest). Change a table here, then `npm run db:generate`.
import { sql } from 'drizzle-orm'
import { type AnyPgColumn, boolean, date, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'

// GET /images serves only an image URL these columns hold, looked up by equality. A hash index: an
// image URL may be longer than a btree entry can be (2,048 characters of up to 4 bytes each).
const imageIndex = (name: string, column: AnyPgColumn) => index(name).using('hash', column)

export const categories = pgTable('categories', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  synthetic: boolean('synthetic').notNull().default(false)
})

export const redFlags = pgTable('red_flags', {
  id: text('id').primaryKey(),
  label: text('label').notNull()
})

export const interests = pgTable('interests', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  categoryId: text('category_id').notNull().references(() => categories.id),
  redFlagId: text('red_flag_id').references(() => redFlags.id)
})

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  username: text('username').notNull(),
  fullname: text('fullname').notNull(),
  image: text('image')
}, (t) => [imageIndex('accounts_image_idx', t.image)])

export const accountInterests = pgTable('account_interests', {
  accountId: text('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  interestId: text('interest_id').notNull().references(() => interests.id)
}, (t) => [primaryKey({ columns: [t.accountId, t.interestId] })])

export const profiles = pgTable('profiles', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  username: text('username').notNull(),
  fullname: text('fullname').notNull(),
  image: text('image'),
  link: text('link').notNull()
}, (t) => [uniqueIndex('profiles_source_username_idx').on(t.source, sql`lower(${t.username})`), imageIndex('profiles_image_idx', t.image)])

export const follows = pgTable('follows', {
  profileId: text('profile_id').notNull().references(() => profiles.id, { onDelete: 'cascade' }),
  accountId: text('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  since: date('since', { mode: 'string' }).notNull(),
  until: date('until', { mode: 'string' })
}, (t) => [primaryKey({ columns: [t.profileId, t.accountId] })])

// One row per unordered pair, stored with a < b.
export const friendships = pgTable('friendships', {
  a: text('a').notNull().references(() => profiles.id, { onDelete: 'cascade' }),
  b: text('b').notNull().references(() => profiles.id, { onDelete: 'cascade' })
}, (t) => [primaryKey({ columns: [t.a, t.b] }), index('friendships_b_idx').on(t.b)])
