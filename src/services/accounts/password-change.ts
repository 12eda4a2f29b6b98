// POST /auth/password (docs/decisions/accounts.md, Account control): a signed-in person changes
// their password. The current password is checked by the sign-in's own check (the same per-address
// backoff, the same failure audit), so a stolen JWT buys no faster guessing than the sign-in form;
// a success ends every other session and tells the mailbox with a security notice
// (docs/security.md, Notices).
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { apiKeys, users, webhookEndpoints } from '../../db/schema/index.ts'
import type { FieldError } from '../../../schemas/common.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import type { SigninOutcome } from './index.ts'
import type { Notices } from '../notices/index.ts'
import { NOTICE } from '../notices/what.ts'
import type { PasswordService } from './passwords.ts'
import type { SessionControl } from '../sessions/control.ts'
import type { AccountChanges } from './changes.ts'
import type { CredentialChanges } from '../sessions/credential-change.ts'

export const CHANGE_MESSAGES = {
  wrongCurrent: 'Your current password is wrong',
  noPassword: 'This account has no password yet: set your first one with a recovery link ("Forgot password" on the sign-in page)'
} as const

export type PasswordChangeOutcome =
  | { status: 'success' }
  | { status: 'error', fieldError: FieldError }
  | { status: 'locked', retryAfter: number }
  | { status: 'unknown' }

interface Deps {
  database: Database
  passwords: PasswordService
  notices: Pick<Notices, 'send'>
  audit: AuditService
  sessionControl: SessionControl
  /** a password change is a credential change (src/services/sessions/credential-change.ts) */
  changeCredential: CredentialChanges['change']
  /** the sign-in's check of an address and password (src/services/accounts/index.ts) */
  checkPassword: (email: string, password: string, meta: RequestMeta) => Promise<SigninOutcome>
  accountChanges: Pick<AccountChanges, 'changed'>
}

export function createPasswordChangeService (deps: Deps) {
  const db = deps.database.db
  const fail = (message: string): PasswordChangeOutcome => ({ status: 'error', fieldError: { field: 'password', message } })

  // A change made knowing the old password keeps the account's programs
  // (docs/decisions/accounts.md, Recovery cuts off an intruder); the notice lists them, so that one
  // the owner did not make is seen: a webhook endpoint by its host, as its own notice names it (a
  // receiver's URL may hold a secret).
  async function keptAccess (userId: string): Promise<string> {
    const [keys, endpoints] = await Promise.all([
      db.select({ name: apiKeys.name, prefix: apiKeys.prefix }).from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)))),
      db.select({ url: webhookEndpoints.url }).from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.userId, userId), isNull(webhookEndpoints.disabledAt)))
    ])
    if (!keys.length && !endpoints.length) return ''
    const lines = [...keys.map((k) => `- API key "${k.name}" (pir_${k.prefix}_…)`), ...endpoints.map((e) => `- a webhook endpoint at ${new URL(e.url).host}`)]
    return `These keep working:\n${lines.join('\n')}\n\n`
  }

  return {
    /** change the password of `userId` from its session `publicId` */
    async change (userId: string, publicId: string, body: { currentPassword: string, newPassword: string }, meta: RequestMeta): Promise<PasswordChangeOutcome> {
      const [user] = await db.select({ email: users.email, passwordHash: users.passwordHash, passwordProven: users.passwordProven })
        .from(users).where(eq(users.id, userId))
      if (!user) return { status: 'unknown' }
      // A Google-only account proves its mailbox before it gets a password, as it always has.
      if (user.passwordHash === null) return fail(CHANGE_MESSAGES.noPassword)
      const weak = deps.passwords.policy(body.newPassword, user.email)
      if (weak) return fail(weak)
      const checked = await deps.checkPassword(user.email, body.currentPassword, meta)
      if (!checked.ok) return 'retryAfter' in checked ? { status: 'locked', retryAfter: checked.retryAfter } : fail(CHANGE_MESSAGES.wrongCurrent)

      // The new password is proven when the session changing it is (docs/decisions/accounts.md,
      // Account control): signed in with Google, or with a password that was proven already.
      const method = await deps.sessionControl.methodOf(publicId)
      const proven = method === 'google' || (method === 'password' && user.passwordProven)
      const passwordHash = await deps.passwords.hash(body.newPassword)
      // every other session ends, this one goes on (a session ended meanwhile is refused: 401)
      const changed = await deps.changeCredential(userId, publicId, async (tx) => {
        const rows = await tx.update(users).set({ passwordHash, passwordProven: proven }).where(eq(users.id, userId)).returning({ id: users.id })
        return rows.length ? true : null
      })
      if (!changed) return { status: 'unknown' }
      deps.accountChanges.changed(userId)
      await deps.audit.record(AUDIT.passwordChange, userId, meta)
      await deps.notices.send(userId, {
        what: NOTICE.passwordChanged,
        details: 'Every other session of the account was signed out.\n\n' + await keptAccess(userId) +
          'If it was not you, reset your password now with "Forgot password" on the sign-in page: that signs everyone out again, ' +
          'and revokes the API keys and disables the webhook endpoints.',
        ip: meta.ip,
        userAgent: meta.userAgent
      })
      return { status: 'success' }
    }
  }
}

export type PasswordChangeService = ReturnType<typeof createPasswordChangeService>
