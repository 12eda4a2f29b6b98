// The tables of programs: API keys, idempotency, webhooks. Change a table here, then `npm run db:generate`.
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.ts'
import { users } from './accounts.ts'

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
