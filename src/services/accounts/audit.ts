// Audit trail (docs/architecture.md, Security rules; docs/security.md, Log inventory): who did what, from where.
import { sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { auditEvents } from '../../db/schema.ts'

export const AUDIT = {
  signinSuccess: 'signin.success',
  signinFailure: 'signin.failure',
  signout: 'signout',
  signup: 'signup',
  confirm: 'confirm',
  passwordReset: 'password.reset',
  idpLink: 'idp.link',
  idpUnlink: 'idp.unlink',
  passwordChange: 'password.change',
  // an unproven password removed when the mailbox's owner linked Google (docs/decisions.md, Account control)
  passwordRemoved: 'password.removed',
  sessionEnd: 'session.end',
  // second factors (docs/decisions.md, Second factors): a TOTP set-up begun, confirmed, removed; a
  // code (TOTP or recovery) accepted or refused at verification or re-authentication
  mfaTotpEnrol: 'mfa.totp.enrol',
  mfaTotpConfirm: 'mfa.totp.confirm',
  mfaTotpRemove: 'mfa.totp.remove',
  mfaVerifySuccess: 'mfa.verify.success',
  mfaVerifyFailure: 'mfa.verify.failure',
  accountDeleted: 'account.deleted',
  passkeyAdded: 'passkey.add',
  passkeyRemoved: 'passkey.remove'
} as const

export interface RequestMeta { ip: string, userAgent?: string }

export function createAuditService (deps: { database: Database }) {
  // built into SQL once: every sign-in writes a row
  const insert = deps.database.db.insert(auditEvents).values({
    kind: sql.placeholder('kind'),
    userId: sql.placeholder('userId'),
    ip: sql.placeholder('ip'),
    userAgent: sql.placeholder('userAgent'),
    emailHash: sql.placeholder('emailHash')
  }).prepare('audit_event')
  return {
    /** emailHash: only on rows that outlive their account (never the address itself) */
    async record (kind: string, userId: string | null, meta: RequestMeta, emailHash: string | null = null): Promise<void> {
      await insert.execute({ kind, userId, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 512) ?? null, emailHash })
    }
  }
}

export type AuditService = ReturnType<typeof createAuditService>
