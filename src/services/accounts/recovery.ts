// Password recovery (docs/architecture.md, HTTP contract): a single-use link valid one hour, only the SHA-256 of its
// secret stored. Recovery never signs in; it ends every session of the account instead.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { authTokens, signinFailures, users } from '../../db/schema/index.ts'
import type { FieldError } from '../../../schemas/common.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import { hashLinkSecret, newLinkSecret } from './link-secrets.ts'
import type { MailService } from './mail.ts'
import type { Notices } from '../notices/index.ts'
import { NOTICE } from '../notices/what.ts'
import type { PasswordService } from './passwords.ts'
import type { AccountChanges } from './changes.ts'
import type { CredentialChanges } from '../sessions/credential-change.ts'
import { NOTHING_CUT, type AccessCutOff, type CutOff } from './cut-off.ts'

export const RECOVERY_TTL_MS = 3600 * 1000
export const INVALID_LINK = 'This link is invalid or has expired'
/** a link of an account staff disabled (docs/operations.md, Support → Actions): it changes nothing until the account is enabled */
export const ACCOUNT_DISABLED = 'account disabled'

export type RecoveryOutcome = { status: 'success' } | { status: 'error', fieldError: FieldError }
/** a reset's answer: what it revoked and disabled, unless the person kept them */
export type ResetOutcome = { status: 'success', revoked: CutOff } | { status: 'error', fieldError: FieldError }

interface Deps {
  database: Database
  passwords: PasswordService
  mail: MailService
  /** the security notice of a reset (docs/security.md, Notices) */
  notices: Pick<Notices, 'send'>
  audit: AuditService
  /** a reset is a credential change: it ends every session of the account (src/services/sessions/credential-change.ts) */
  changeCredential: CredentialChanges['change']
  /** a reset cuts the account's programs off, in its own transaction (./cut-off.ts) */
  cutOff: Pick<AccessCutOff, 'within' | 'settle'>
  /** told when a user's account changes here (src/services/accounts/changes.ts) */
  accountChanges: Pick<AccountChanges, 'changed'>
  publicUrl: string
  now?: () => number
}

export function createRecoveryService (deps: Deps) {
  const { database, passwords } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  const invalidLink: { status: 'error', fieldError: FieldError } = { status: 'error', fieldError: { field: 'password', message: INVALID_LINK } }
  const disabled: { status: 'error', fieldError: FieldError } = { status: 'error', fieldError: { field: 'email', message: ACCOUNT_DISABLED } }

  function recoveryMail (to: string, secret: string) {
    const link = `${deps.publicUrl}/recovery/${secret}`
    return {
      to,
      subject: 'Reset your password',
      text: 'Someone asked to reset the password of your Profile Interest Reports account.\n\n' +
        `Choose a new password by opening this link within one hour:\n${link}\n\n` +
        'The link works once. If you did not ask for it, ignore this message: your password stays as it is.\n',
      link
    }
  }

  /** the account a still-usable link belongs to */
  async function linkOwner (secret: string) {
    const [row] = await db.select({ userId: users.id, email: users.email, disabledAt: users.disabledAt }).from(authTokens)
      .innerJoin(users, eq(users.id, authTokens.userId))
      .where(and(
        eq(authTokens.hash, hashLinkSecret(secret)),
        eq(authTokens.kind, 'recovery'),
        isNull(authTokens.usedAt),
        gt(authTokens.expiresAt, new Date(now()))
      ))
    return row
  }

  return {
    /**
     * Registered or not, the same work: a secret is made and hashed, and one INSERT … SELECT runs,
     * which stores a link only when the address has an account that is not disabled (its mails are
     * held). Only then is a mail sent, after the answer has left.
     */
    async request (email: string): Promise<void> {
      const { secret, hash } = newLinkSecret()
      const expiresAt = new Date(now() + RECOVERY_TTL_MS).toISOString()
      const rows = await database.query<{ user_id: string }>(
        `insert into auth_tokens (hash, kind, user_id, expires_at)
         select $1, 'recovery', id, $3::timestamptz from users where email = $2 and disabled_at is null
         returning user_id`,
        [hash, email, expiresAt]
      )
      if (rows.length) deps.mail.sendLater(recoveryMail(email, secret))
    },

    async check (secret: string): Promise<RecoveryOutcome> {
      const owner = await linkOwner(secret)
      return !owner ? invalidLink : owner.disabledAt ? disabled : { status: 'success' }
    },

    /**
     * keepApiKeys: the person asked to keep the account's API keys and webhook endpoints; otherwise
     * the reset revokes every key and disables every endpoint, in its own transaction.
     */
    async reset (secret: string, password: string, meta: RequestMeta, keepApiKeys = false): Promise<ResetOutcome> {
      const owner = await linkOwner(secret)
      if (!owner) return invalidLink
      if (owner.disabledAt) return disabled
      const weak = passwords.policy(password, owner.email)
      if (weak) return { status: 'error', fieldError: { field: 'password', message: weak } }
      const passwordHash = await passwords.hash(password)

      // The link is consumed by a conditional UPDATE in the credential change that sets the password
      // and ends every session of the account: of two simultaneous uses, the second waits for the
      // first's lock on the user's row, then finds used_at set and changes nothing.
      const changed = await deps.changeCredential(owner.userId, null, async (tx) => {
        const at = new Date(now())
        const [used] = await tx.update(authTokens).set({ usedAt: at })
          .where(and(
            eq(authTokens.hash, hashLinkSecret(secret)),
            eq(authTokens.kind, 'recovery'),
            eq(authTokens.userId, owner.userId),
            isNull(authTokens.usedAt),
            gt(authTokens.expiresAt, at)
          ))
          .returning({ userId: authTokens.userId })
        if (!used) return null
        // The mailbox is proven, so the address is confirmed; other recovery links of the account die.
        // A password set through the mailbox is proven (docs/decisions/accounts.md, Account
        // control).
        await tx.update(users).set({ passwordHash, passwordProven: true, confirmedAt: sql`coalesce(${users.confirmedAt}, ${at.toISOString()}::timestamptz)` })
          .where(eq(users.id, used.userId))
        await tx.update(authTokens).set({ usedAt: at })
          .where(and(eq(authTokens.userId, used.userId), eq(authTokens.kind, 'recovery'), isNull(authTokens.usedAt)))
        const cut = keepApiKeys ? NOTHING_CUT : await deps.cutOff.within(tx, used.userId)
        return { userId: used.userId, cut }
      })
      if (!changed) return invalidLink
      const { userId, cut } = changed.value
      deps.accountChanges.changed(userId)

      // The owner has just proven the mailbox: a sign-in backoff built up by someone else ends here.
      await db.delete(signinFailures).where(eq(signinFailures.email, owner.email))
      await deps.audit.record(AUDIT.passwordReset, userId, meta)
      await deps.cutOff.settle(userId, cut, meta)
      const revoked = cut.apiKeys.length + cut.webhooks.length
        ? `\n${cut.apiKeys.length} API key(s) were revoked and ${cut.webhooks.length} webhook endpoint(s) disabled.`
        : ''
      await deps.notices.send(userId, { what: NOTICE.passwordReset, details: `Every session of the account was signed out.${revoked}`, ip: meta.ip, userAgent: meta.userAgent })
      return { status: 'success', revoked: cut }
    }
  }
}

export type RecoveryService = ReturnType<typeof createRecoveryService>
