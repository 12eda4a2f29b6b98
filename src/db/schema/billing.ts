// The tables of billing. Change a table here, then `npm run db:generate`.
import { bigint, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.ts'
import { users } from './accounts.ts'

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
