// The tables of accounts and auth. Change a table here, then `npm run db:generate`.
import { sql } from 'drizzle-orm'
import { bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt, writtenBy } from './columns.ts'

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash'),
  // whether whoever set the password has shown control of the mailbox (docs/decisions/accounts.md,
  // Account control): an unproven password stops signing in once the mailbox's owner links Google
  passwordProven: boolean('password_proven').notNull().default(false),
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  googleSub: text('google_sub').unique(),
  acquisitionCode: text('acquisition_code'),
  promocode: text('promocode'),
  reportCredits: integer('report_credits').notNull().default(0),
  stripeCustomerId: text('stripe_customer_id').unique(),
  // moved on by every credential change (password set, changed or reset, a factor removed, Google
  // unlinked): a session records the version it proved, and one proved against an older version is
  // refused (docs/decisions/accounts.md, Credential versions)
  credentialVersion: integer('credential_version').notNull().default(1),
  createdAt: createdAt(),
  // 'user' | 'support' | 'admin': what the person may do at /admin (docs/operations.md, Support)
  role: text('role', { enum: ['user', 'support', 'admin'] }).notNull().default('user'),
  // set by staff: the account signs in to nothing, its programs and mails are held, nothing of it is lost
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
  // whether a sign-in from a device new to the account mails a notice (the only notice that may be turned off)
  newDeviceNotices: boolean('new_device_notices').notNull().default(true)
}, (t) => [
  // staff search addresses by any part of them (ILIKE '%q%'): a trigram index keeps it fast at a million accounts
  index('users_email_trgm_idx').using('gin', t.email.op('gin_trgm_ops')),
  index('users_role_idx').on(t.role).where(sql`${t.role} <> 'user'`)
])

// Session rows back @fastify/session (id = the cookie's session id, a secret) and JWTs (`sid` claim =
// public_id, so a token never carries the cookie secret).
export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(),
  publicId: uuid('public_id').notNull().unique().defaultRandom(),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  data: jsonb('data').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
  createdAt: createdAt(),
  // what the account page lists: when and from where the session was last used, and how it began
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  userAgent: text('user_agent'),
  ipPrefix: text('ip_prefix'),
  // 'password' | 'google' | 'recovery': how the session was signed in
  method: text('method'),
  // when the session last proved its owner (sign-in, POST /auth/reauthenticate): sensitive calls need
  // a recent proof (STEP_UP_MAX_AGE_S)
  provedAt: timestamp('proved_at', { withTimezone: true }).notNull().defaultNow(),
  // the users.credential_version this session's sign-in proved
  credentialVersion: integer('credential_version').notNull().default(1),
  // the session's authentication level when its account has a second factor: 1 until the second
  // factor is proved, then 2; null for an account without one (no level applies)
  aal: smallint('aal')
}, (t) => [index('sessions_user_idx').on(t.userId), index('sessions_ended_idx').on(t.endedAt),
  // the reconcile reads the sessions that expired since its last look
  index('sessions_expires_idx').on(t.expiresAt)])

// Every session that ended or was deleted while live, written by a trigger in the same transaction
// (drizzle/0004): instances reconcile their in-memory ended set from it, so a lost NOTIFY costs at
// most one reconcile interval. Rows older than JWT_TTL are pruned.
export const sessionRevocations = pgTable('session_revocations', {
  publicId: uuid('public_id').primaryKey(),
  userId: uuid('user_id'),
  revokedAt: timestamp('revoked_at', { withTimezone: true }).notNull().defaultNow(),
  // every instance reads the revocations committed since its last read by this (src/services/sessions/ended.ts)
  txid: writtenBy()
}, (t) => [index('session_revocations_revoked_idx').on(t.revokedAt), index('session_revocations_txid_idx').on(t.txid)])

export const promocodes = pgTable('promocodes', {
  code: text('code').primaryKey(),
  maxUses: integer('max_uses').notNull(),
  uses: integer('uses').notNull().default(0),
  credits: integer('credits').notNull().default(1),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  createdAt: createdAt()
})

// Confirmation and recovery links: only the SHA-256 of the mailed secret is stored.
export const authTokens = pgTable('auth_tokens', {
  hash: text('hash').primaryKey(),
  kind: text('kind', { enum: ['confirm', 'recovery'] }).notNull(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: createdAt()
}, (t) => [index('auth_tokens_user_idx').on(t.userId)])

// Failed sign-ins per e-mail address (whether or not it is registered, so the backoff tells nothing).
export const signinFailures = pgTable('signin_failures', {
  email: text('email').primaryKey(),
  failures: integer('failures').notNull().default(0),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
})

export const auditEvents = pgTable('audit_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  userId: uuid('user_id'),
  kind: text('kind').notNull(),
  ip: text('ip'),
  userAgent: text('user_agent'),
  // a keyed hash (HMAC-SHA-256) of the e-mail address, on rows that outlive their account (account
  // deletion; docs/decisions/accounts.md, Audit trail)
  emailHash: text('email_hash'),
  createdAt: createdAt(),
  // the staff member who acted on userId's account (admin.* rows), null when the holder acted
  actorId: uuid('actor_id'),
  // what staff gave for the action: the reason, the proof of identity, the delta
  details: jsonb('details')
  // written only through drizzle/0013's and 0020's functions; created_at indexed for the retention's delete
}, (t) => [index('audit_events_user_idx').on(t.userId), index('audit_events_created_idx').on(t.createdAt),
  index('audit_events_actor_idx').on(t.actorId).where(sql`${t.actorId} is not null`)])

// Promo codes redeemed by an existing account: each code adds its credits once per account.
export const userPromocodes = pgTable('user_promocodes', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  code: text('code').notNull(),
  createdAt: createdAt()
}, (t) => [primaryKey({ columns: [t.userId, t.code] })])
