// An account as the admin API answers it after an action on it (disable, enable): the fields of the
// user list (docs/operations.md, Support → Actions), read in one statement.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { sessions, users } from '../../db/schema.ts'
import { mfaStatusColumns } from '../mfa/index.ts'
import { currentSubscription } from '../billing/subscription-state.ts'
import type { AdminActionUser } from '../../../schemas/admin-actions.ts'

/** the account `userId` as the admin API shows it; null when there is none */
export async function actionUser (db: Db, userId: string): Promise<AdminActionUser | null> {
  const { totp, passkeys } = mfaStatusColumns(users.id)
  const [row] = await db.select({
    id: users.id,
    email: users.email,
    confirmedAt: users.confirmedAt,
    role: users.role,
    disabledAt: users.disabledAt,
    createdAt: users.createdAt,
    credits: users.reportCredits,
    lastSignInAt: sql<string | null>`(select max(${sessions.createdAt}) from ${sessions} where ${sessions.userId} = "users"."id")`,
    totp,
    passkeys
  }).from(users).where(eq(users.id, userId))
  if (!row) return null
  const subscription = await currentSubscription(db, userId)
  return {
    id: row.id,
    email: row.email,
    confirmed: row.confirmedAt !== null,
    role: row.role,
    disabled: row.disabledAt !== null,
    createdAt: row.createdAt.toISOString(),
    // raw SQL: the drivers give a timestamp as text or as a Date
    lastSignInAt: row.lastSignInAt === null ? null : new Date(row.lastSignInAt).toISOString(),
    credits: row.credits,
    subscription: subscription === null ? null : { status: subscription.status },
    mfa: { totp: Boolean(row.totp), passkeys: Number(row.passkeys) }
  }
}
