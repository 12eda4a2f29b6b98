// DELETE /auth/account (docs/decisions.md, Account control): a signed-in person deletes their account, proving it once more
// (the password, or a fresh credential of the linked Google account). Their reports, events,
// sessions, links and subscription rows go with the user row (foreign-key cascades); the sessions are
// ended first, in the same transaction, so their JWTs are revoked on every instance at commit
// (drizzle/0005). A subscription still running is cancelled at its period's end through Stripe
// before anything is deleted; the Stripe customer stays in Stripe for accounting, unlinked. The
// audit trail keeps one `account.deleted` row with the SHA-256 of the address, never the address.
import { createHash } from 'node:crypto'
import { and, eq, isNull, notInArray } from 'drizzle-orm'
import Stripe from 'stripe'
import type { Database } from '../../db/client.ts'
import { auditEvents, sessions, signinFailures, subscriptions, users } from '../../db/schema.ts'
import { ServiceUnavailable } from '../../errors.ts'
import { AUDIT, type RequestMeta } from './audit.ts'
import type { SigninOutcome } from './index.ts'
import { stripeClientOptions, type BillingConfig } from '../billing/stripe.ts'
import type { GoogleVerification } from './google.ts'
import type { PasswordService } from './passwords.ts'
import { FINAL_STATUSES } from '../billing/subscription-state.ts'
import type { AccountChanges } from './changes.ts'

export type DeletionProof = { password?: string, clientId?: string, credential?: string }

export type DeletionOutcome =
  | { status: 'deleted' }
  | { status: 'unknown' }
  | { status: 'missing-proof' }
  | { status: 'refused', message: string }
  | { status: 'locked', retryAfter: number }

export const DELETION_MESSAGES = {
  missing: 'send the password, or clientId and credential for an account without one',
  wrongPassword: 'the password is wrong',
  noPassword: 'this account has no password: send a Google credential (clientId, credential) instead',
  wrongGoogle: 'the Google credential is not one of the Google account linked to this account'
} as const

interface Log { warn: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }

interface Deps {
  database: Database
  passwords: PasswordService
  /** the sign-in's check of an address and password (src/services/accounts/index.ts): its backoff applies */
  checkPassword: (email: string, password: string, meta: RequestMeta) => Promise<SigninOutcome>
  verifyGoogle: (clientId: string, credential: string) => Promise<GoogleVerification>
  /** the session service's marking of ended sessions */
  announceEnded: (publicIds: string[]) => Promise<void>
  accountChanges: Pick<AccountChanges, 'changed'>
  stripe: BillingConfig
  log: Log
  now?: () => number
}

export const emailHash = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')

export function createAccountDeletionService (deps: Deps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  const stripe = deps.stripe.secretKey ? new Stripe(deps.stripe.secretKey, stripeClientOptions(deps.stripe.apiUrl)) : undefined
  const refused = (message: string): DeletionOutcome => ({ status: 'refused', message })

  /** null when the proof holds, else why not */
  async function checkProof (user: { email: string, passwordHash: string | null, googleSub: string | null }, proof: DeletionProof, meta: RequestMeta): Promise<DeletionOutcome | null> {
    if (proof.password !== undefined) {
      if (user.passwordHash === null) {
        await deps.passwords.verifyDummy(proof.password)
        return refused(DELETION_MESSAGES.noPassword)
      }
      const checked = await deps.checkPassword(user.email, proof.password, meta)
      if (checked.ok) return null
      return 'retryAfter' in checked ? { status: 'locked', retryAfter: checked.retryAfter } : refused(DELETION_MESSAGES.wrongPassword)
    }
    if (proof.clientId === undefined || proof.credential === undefined) return { status: 'missing-proof' }
    if (user.googleSub === null) return refused(DELETION_MESSAGES.wrongGoogle)
    const verified = await deps.verifyGoogle(proof.clientId, proof.credential)
    if (!verified.ok) {
      if (verified.reason === 'certificates') throw new ServiceUnavailable('Google sign-in is unavailable, try again later')
      return refused(DELETION_MESSAGES.wrongGoogle)
    }
    return verified.identity.sub === user.googleSub ? null : refused(DELETION_MESSAGES.wrongGoogle)
  }

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
    async remove (userId: string, proof: DeletionProof, meta: RequestMeta): Promise<DeletionOutcome> {
      const [user] = await db.select({ email: users.email, passwordHash: users.passwordHash, googleSub: users.googleSub })
        .from(users).where(eq(users.id, userId))
      if (!user) return { status: 'unknown' }
      const failed = await checkProof(user, proof, meta)
      if (failed) return failed
      await cancelSubscriptions(userId)

      const ended = await db.transaction(async (tx) => {
        const at = new Date(now())
        const rows = await tx.update(sessions).set({ endedAt: at })
          .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
          .returning({ publicId: sessions.publicId })
        await tx.insert(auditEvents).values({
          kind: AUDIT.accountDeleted, userId, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 512) ?? null, emailHash: emailHash(user.email)
        })
        await tx.delete(signinFailures).where(eq(signinFailures.email, user.email))
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
