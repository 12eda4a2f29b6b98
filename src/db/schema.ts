// Every table of the service, declared once. Change a table here, then `npm run db:generate`.
import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn, bigint, bigserial, boolean, customType, date, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid
} from 'drizzle-orm/pg-core'

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow()

// The id of the transaction that wrote a row (a 64-bit xid8, which never wraps): a reader that keeps
// the snapshot of its last read finds exactly the rows committed since, in whatever order their
// transactions began and committed (src/db/commits.ts; docs/decisions.md, Revocation cursor).
const xid8 = customType<{ data: string, driverData: string }>({ dataType: () => 'xid8' })
const writtenBy = () => xid8('txid').notNull().default(sql`pg_current_xact_id()`)

// ---------------------------------------------------------------- accounts and auth

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash'),
  // whether whoever set the password has shown control of the mailbox (docs/decisions.md, Account control):
  // an unproven password stops signing in once the mailbox's owner links Google
  passwordProven: boolean('password_proven').notNull().default(false),
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  googleSub: text('google_sub').unique(),
  acquisitionCode: text('acquisition_code'),
  promocode: text('promocode'),
  reportCredits: integer('report_credits').notNull().default(0),
  stripeCustomerId: text('stripe_customer_id').unique(),
  // moved on by every credential change (password set, changed or reset, a factor removed, Google
  // unlinked): a session records the version it proved, and one proved against an older version is
  // refused (docs/decisions.md, Credential versions)
  credentialVersion: integer('credential_version').notNull().default(1),
  createdAt: createdAt()
})

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
  // deletion; docs/decisions.md, Audit trail)
  emailHash: text('email_hash'),
  createdAt: createdAt()
  // written only through drizzle/0013's functions; created_at indexed for the retention's delete
}, (t) => [index('audit_events_user_idx').on(t.userId), index('audit_events_created_idx').on(t.createdAt)])

// Promo codes redeemed by an existing account: each code adds its credits once per account.
export const userPromocodes = pgTable('user_promocodes', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  code: text('code').notNull(),
  createdAt: createdAt()
}, (t) => [primaryKey({ columns: [t.userId, t.code] })])

// ---------------------------------------------------------------- profile data (ingest)

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

// ---------------------------------------------------------------- reports

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

// ---------------------------------------------------------------- billing

// One row per Stripe subscription (a user may have several over time, or two at once after two
// checkouts); the user is entitled while any of them is active or trialing.
export const subscriptions = pgTable('subscriptions', {
  stripeSubscriptionId: text('stripe_subscription_id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  stripeCustomerId: text('stripe_customer_id'),
  status: text('status').notNull(),
  priceId: text('price_id'),
  currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }),
  // Stripe event `created` (Unix seconds) of the newest event applied: an older event never
  // overwrites newer state
  eventCreated: bigint('event_created', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
}, (t) => [index('subscriptions_user_idx').on(t.userId)])

export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  createdAt: createdAt()
})

// ---------------------------------------------------------------- second factors: TOTP, recovery codes, passkeys

// A user's TOTP secret, encrypted with MFA_ENCRYPTION_KEY (the stored text names the key it was
// sealed with, so keys rotate). Pending until confirmed_at; last_step is the 30-second step of the last
// code accepted, so no code is accepted twice.
export const mfaTotp = pgTable('mfa_totp', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  lastStep: bigint('last_step', { mode: 'number' }),
  createdAt: createdAt()
})

// One-time recovery codes: only their hashes; used_at set by the one use each allows.
export const mfaRecoveryCodes = pgTable('mfa_recovery_codes', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  hash: text('hash').notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: createdAt()
}, (t) => [primaryKey({ columns: [t.userId, t.hash] })])

// A WebAuthn credential (a passkey): its id and COSE public key as base64url, the signature counter
// the authenticator last reported.
export const passkeys = pgTable('passkeys', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  credentialId: text('credential_id').notNull().unique(),
  publicKey: text('public_key').notNull(),
  counter: bigint('counter', { mode: 'number' }).notNull().default(0),
  transports: text('transports').array(),
  deviceType: text('device_type'),
  backedUp: boolean('backed_up').notNull().default(false),
  name: text('name').notNull(),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true })
}, (t) => [index('passkeys_user_idx').on(t.userId)])

// Challenges the service issued and will accept once (deleted as they are used): WebAuthn
// registration and assertion challenges, and the nonces a Google proof must carry.
export const authChallenges = pgTable('auth_challenges', {
  challenge: text('challenge').primaryKey(),
  purpose: text('purpose').notNull(),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt()
}, (t) => [index('auth_challenges_expires_idx').on(t.expiresAt)])

// ---------------------------------------------------------------- programs: API keys, idempotency, webhooks

// An API key is `pir_<prefix>_<secret>`: the prefix finds the row, only the SHA-256 of the secret is
// stored. Revoking or deleting a live key is recorded in session_revocations and announced on the
// session_ended channel by a trigger (drizzle/0009), so every instance drops it as it drops an ended
// session's tokens.
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  scopes: text('scopes').array().notNull(),
  prefix: text('prefix').notNull().unique(),
  hash: text('hash').notNull(),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true })
}, (t) => [index('api_keys_user_idx').on(t.userId)])

// Idempotency-Key: the first answer to a user's key, replayed for 24 h to a retry of the same request
// (same method, path and body: request_hash). status_code is null while the first request runs.
export const idempotencyKeys = pgTable('idempotency_keys', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  statusCode: integer('status_code'),
  // the answer's headers that a replay repeats (content type, location) and its body, as sent
  headers: jsonb('headers'),
  body: text('body'),
  createdAt: createdAt(),
  completedAt: timestamp('completed_at', { withTimezone: true })
}, (t) => [primaryKey({ columns: [t.userId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)])

// A webhook endpoint signs with its secret (the HMAC needs the secret itself, so it is stored); after
// a rotation the previous one signs too until previous_until.
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  events: text('events').array().notNull(),
  secret: text('secret').notNull(),
  previousSecret: text('previous_secret'),
  previousUntil: timestamp('previous_until', { withTimezone: true }),
  // set when an endpoint answered 410 Gone, or its account's programs were cut off (src/services/accounts/cut-off.ts): nothing more is sent to it
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
  createdAt: createdAt()
}, (t) => [index('webhook_endpoints_user_idx').on(t.userId)])

// One event for one endpoint. Written in the transaction of the change that causes it; its id is the
// `webhook-id` of every attempt, and body the exact bytes signed and sent.
export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: uuid('id').primaryKey().defaultRandom(),
  endpointId: uuid('endpoint_id').notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
  type: text('type').notNull(),
  body: text('body').notNull(),
  status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  createdAt: createdAt(),
  deliveredAt: timestamp('delivered_at', { withTimezone: true })
}, (t) => [index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt),
  index('webhook_deliveries_due_idx').on(t.nextAttemptAt)])

// ---------------------------------------------------------------- watches and alerts

// A watch on a ready report (one per report): later months of its profiles' data raise alerts
// (docs/decisions.md, Watches and alerts).
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
