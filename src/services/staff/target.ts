// The account a staff action is on (docs/operations.md, Support → Actions): read with its row locked
// in the action's transaction, so that two actions on one account take turns, and checked against
// who acts. A support member acts on customers' accounts only; an admin on any account but, for
// disabling, their own (docs/decisions/accounts.md, Staff actions).
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import { Conflict, Forbidden, notFound } from '../../errors.ts'
import { RANK, type Role } from './roles.ts'

export interface Target { id: string, email: string, role: Role, confirmed: boolean, disabled: boolean, credits: number }

/** the account `userId`, its row locked until `tx` ends; 404 when there is none, 403 when `actorId` may not act on it, 409 `notSelf` when it is theirs and that is refused */
export async function lockTarget (tx: Db, userId: string, actorId: string, opts: { notSelf?: string } = {}): Promise<Target> {
  const [row] = await tx.select({
    id: users.id, email: users.email, role: users.role, confirmedAt: users.confirmedAt, disabledAt: users.disabledAt, credits: users.reportCredits
  }).from(users).where(eq(users.id, userId)).for('update')
  if (!row) throw notFound('no such user')
  if (opts.notSelf !== undefined && userId === actorId) throw new Conflict(opts.notSelf)
  const [own] = await tx.select({ role: users.role }).from(users).where(eq(users.id, actorId))
  // support acts on customers' accounts; only an admin acts on a staff member's (the role read here,
  // in the action's transaction: one changed since the request's check counts)
  if (!own || (row.role !== 'user' && RANK[own.role] < RANK.admin)) throw new Forbidden()
  return { id: row.id, email: row.email, role: row.role, confirmed: row.confirmedAt !== null, disabled: row.disabledAt !== null, credits: row.credits }
}
