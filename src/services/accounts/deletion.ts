// DELETE /auth/account (docs/decisions/accounts.md, Account control): a signed-in person deletes
// their account, proving it once more (the password, or a fresh credential of the linked Google
// account). Their reports, events, sessions, links and subscription rows go with the user row
// (foreign-key cascades); the sessions are ended first, in the same transaction, so their JWTs are
// revoked on every instance at commit (drizzle/0005). A subscription still running is cancelled at
// its period's end through Stripe before anything is deleted; the Stripe customer stays in Stripe
// for accounting, unlinked. The audit trail keeps one `account.deleted` row with a keyed hash of
// the address, never the address, and the user's earlier rows lose their IP address and User-Agent
// (docs/decisions/accounts.md, Audit trail).
import { and, eq, inArray, isNull, notInArray } from 'drizzle-orm'
import Stripe from 'stripe'
import type { Database } from '../../db/client.ts'
import { sessions, signinFailures, subscriptions, users } from '../../db/schema/index.ts'
import { ServiceUnavailable } from '../../errors.ts'
import type { AuditService, EmailHasher, RequestMeta } from './audit.ts'
import type { OwnerProof, OwnerProofService, ProofOutcome } from './owner-proof.ts'
import { stripeClientOptions, type BillingConfig } from '../billing/stripe.ts'
import { FINAL_STATUSES } from '../billing/subscription-state.ts'
import type { AccountChanges } from './changes.ts'
import { codeBudgetKey } from './code-budget.ts'

export type DeletionOutcome = { status: 'deleted' } | Exclude<ProofOutcome, { status: 'proved' }>

interface Log { warn: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }

interface Deps {
  database: Database
  /** the password or Google credential check (src/services/accounts/owner-proof.ts) */
  ownerProof: OwnerProofService
  audit: Pick<AuditService, 'recordDeletion'>
  emailHasher: Pick<EmailHasher, 'hash'>
  /** the session service's marking of ended sessions */
  announceEnded: (publicIds: string[]) => Promise<void>
  accountChanges: Pick<AccountChanges, 'changed'>
  stripe: BillingConfig
  log: Log
  now?: () => number
}

export function createAccountDeletionService (deps: Deps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  const stripe = deps.stripe.secretKey ? new Stripe(deps.stripe.secretKey, stripeClientOptions(deps.stripe.apiUrl)) : undefined

  /** cancel at period end every subscription of the user that may still bill; Stripe failing is a 503, before anything is deleted */
  async function cancelSubscriptions (userId: string): Promise<void> {
    const running = await db.select({ id: subscriptions.stripeSubscriptionId }).from(subscriptions)
      .where(and(eq(subscriptions.userId, userId), notInArray(subscriptions.status, [...FINAL_STATUSES])))
    if (!running.length) return
    if (!stripe) {
      deps.log.error({ subscriptions: running.length }, 'account deleted with running subscriptions, and billing is not configured to cancel them')
      return
    }
    for (const { id } of running) {
      try {
        await stripe.subscriptions.update(id, { cancel_at_period_end: true }, { idempotencyKey: `cancel-at-period-end-${id}` })
      } catch (err) {
        // gone at Stripe already: nothing left to cancel
        if (err instanceof Stripe.errors.StripeError && err.statusCode === 404) continue
        const e = err as { type?: string, code?: string, statusCode?: number, requestId?: string }
        deps.log.error({ stripe: { type: e.type, code: e.code, statusCode: e.statusCode, requestId: e.requestId } }, 'stripe subscription cancel failed')
        throw new ServiceUnavailable('payment provider unavailable')
      }
    }
  }

  return {
    async remove (userId: string, proof: OwnerProof, meta: RequestMeta): Promise<DeletionOutcome> {
      const { user, outcome } = await deps.ownerProof.ofUser(userId, proof, meta)
      if (outcome.status !== 'proved') return outcome
      if (!user) return { status: 'unknown' }
      await cancelSubscriptions(userId)

      const ended = await db.transaction(async (tx) => {
        const at = new Date(now())
        const rows = await tx.update(sessions).set({ endedAt: at })
          .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
          .returning({ publicId: sessions.publicId })
        await deps.audit.recordDeletion(tx, userId, deps.emailHasher.hash(user.email))
        await tx.delete(signinFailures).where(inArray(signinFailures.email, [user.email, codeBudgetKey(userId)]))
        await tx.delete(users).where(eq(users.id, userId))
        return rows.map((r) => r.publicId)
      })
      if (ended.length) await deps.announceEnded(ended)
      deps.accountChanges.changed(userId)
      return { status: 'deleted' }
    }
  }
}

export type AccountDeletionService = ReturnType<typeof createAccountDeletionService>
