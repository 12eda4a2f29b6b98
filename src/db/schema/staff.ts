// The tables of the support desk and the holder's notices. Change a table here, then `npm run db:generate`.
import { bigserial, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.ts'
import { users } from './accounts.ts'

// Every change of an account's report credits made by staff, with the balance it left and why: the
// ledger support reads when a holder says "my credits are wrong".
export const creditLedger = pgTable('credit_ledger', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  delta: integer('delta').notNull(),
  balance: integer('balance').notNull(),
  reason: text('reason').notNull(),
  // the staff member who made the change
  actorId: uuid('actor_id'),
  createdAt: createdAt()
}, (t) => [index('credit_ledger_user_idx').on(t.userId, t.createdAt)])

// The devices an account signed in from (device name as the sessions card shows it, and the address's
// /24 or /48): a sign-in from one not seen for 90 days mails the holder a notice.
export const knownDevices = pgTable('known_devices', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  device: text('device').notNull(),
  ipPrefix: text('ip_prefix').notNull(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow()
}, (t) => [primaryKey({ columns: [t.userId, t.device, t.ipPrefix] })])
