// The tables of second factors: TOTP, recovery codes, passkeys. Change a table here, then `npm run db:generate`.
import { bigint, boolean, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.ts'
import { users } from './accounts.ts'

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
