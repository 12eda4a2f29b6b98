// Audit trail (docs/architecture.md, Security rules; docs/security.md, Log inventory): who did what, from where.
// Rows are written, blanked and pruned only through drizzle/0013's functions: on PostgreSQL
// audit_record runs as pir_audit_writer, a role that may only insert (docs/operations.md, Audit trail).
import { createHmac, hkdfSync } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'

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
  // an unproven password removed when the mailbox's owner linked Google
  // (docs/decisions/accounts.md, Account control)
  passwordRemoved: 'password.removed',
  sessionEnd: 'session.end',
  // second factors (docs/decisions/accounts.md, Second factors): a TOTP set-up begun, confirmed,
  // removed; a code (TOTP or recovery) accepted or refused at verification or re-authentication
  mfaTotpEnrol: 'mfa.totp.enrol',
  mfaTotpConfirm: 'mfa.totp.confirm',
  mfaTotpRemove: 'mfa.totp.remove',
  mfaVerifySuccess: 'mfa.verify.success',
  mfaVerifyFailure: 'mfa.verify.failure',
  accountDeleted: 'account.deleted',
  passkeyAdded: 'passkey.add',
  passkeyRemoved: 'passkey.remove',
  // an operator removed every second factor of an account after proving its owner's identity out of
  // band (docs/operations.md, Lost second factors); the row has no IP address or User-Agent
  mfaFactorsRemoved: 'mfa.factors.removed',
  // an account's programs cut off (./cut-off.ts): one row per API key revoked, one per webhook
  // endpoint disabled, beside the row of what called for it
  apiKeyRevoke: 'apikey.revoke',
  webhookDisable: 'webhook.disable',
  // a program given access: the holder's security log shows them, and a notice is mailed (docs/security.md, Notices)
  apiKeyCreate: 'apikey.create',
  webhookCreate: 'webhook.create',
  // staff actions (docs/operations.md, Support): userId is the account acted on, actor_id the staff
  // member, details what they gave (reason, proof, delta, role)
  adminDisable: 'admin.disable',
  adminEnable: 'admin.enable',
  adminCredits: 'admin.credits',
  adminSessionsEnd: 'admin.sessions.end',
  adminFactorsRemove: 'admin.factors.remove',
  adminMail: 'admin.mail',
  adminRole: 'admin.role',
  adminPromocodeCreate: 'admin.promocode.create',
  adminPromocodeDelete: 'admin.promocode.delete'
} as const

/**
 * a staff action as its audit row records it; an operator's command (`npm run admins`) has no actor
 * and no request (actorId and meta null)
 */
export interface StaffAction { userId: string | null, actorId: string | null, meta: RequestMeta | null, details: Record<string, unknown> }

export interface RequestMeta { ip: string, userAgent?: string }

const RECORD = 'select audit_record($1, $2, $3, $4, $5)'
const DAY_MS = 24 * 3600 * 1000
/** HKDF's label: the key of these hashes is MFA_ENCRYPTION_KEY's, derived for this use alone */
const EMAIL_HASH_INFO = 'pir audit email hmac v1'

/** the HMAC-SHA-256 key for e-mail hashes derived from one MFA_ENCRYPTION_KEY (docs/decisions/accounts.md, Audit trail) */
function emailHashKey (secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), EMAIL_HASH_INFO, 32))
}

/**
 * The keyed hash a deleted account's audit row keeps instead of its address: without the key the
 * address cannot be tested against it. `previousKeys`: the rotated-out MFA keys, so that an operator
 * can still match rows hashed before a rotation.
 */
export function createEmailHasher (keys: { encryptionKey: string, previousKeys: string[] }) {
  const current = emailHashKey(keys.encryptionKey)
  const all = [current, ...keys.previousKeys.map(emailHashKey)]
  const digest = (key: Buffer, email: string) => createHmac('sha256', key).update(email.trim().toLowerCase()).digest('hex')
  return {
    /** what a row written now keeps */
    hash: (email: string) => digest(current, email),
    /** every hash this address may have in a row, under the current key and each previous one */
    candidates: (email: string) => all.map((key) => digest(key, email))
  }
}

export type EmailHasher = ReturnType<typeof createEmailHasher>

export function createAuditService (deps: { database: Database, retentionDays: number, now?: () => number }) {
  const now = deps.now ?? Date.now
  const userAgentOf = (meta: RequestMeta | null) => meta?.userAgent?.slice(0, 512) ?? null
  return {
    /** emailHash: only on rows that outlive their account (never the address itself) */
    async record (kind: string, userId: string | null, meta: RequestMeta, emailHash: string | null = null): Promise<void> {
      await deps.database.query(RECORD, [kind, userId, meta.ip, userAgentOf(meta), emailHash])
    },

    /** a row of an operator's command (no request: no IP address or User-Agent), in the transaction `tx` of what it records */
    async recordIn (tx: Db, kind: string, userId: string): Promise<void> {
      await tx.execute(sql`select audit_record(${kind}, ${userId}::uuid, null, null, null)`)
    },

    /** a staff action (an `admin.*` kind), in the transaction `tx` of what it records */
    async recordStaffIn (tx: Db, kind: string, action: StaffAction): Promise<void> {
      await tx.execute(sql`select audit_record(${kind}, ${action.userId}::uuid, ${action.meta?.ip ?? null}, ${userAgentOf(action.meta)}, null,
        ${action.actorId}::uuid, ${JSON.stringify(action.details)}::jsonb)`)
    },

    /** a deleted account's last row, and its earlier rows stripped of address and User-Agent, in the deleting transaction */
    async recordDeletion (tx: Db, userId: string, emailHash: string): Promise<void> {
      await tx.execute(sql`select audit_forget_user(${userId}::uuid)`)
      await tx.execute(sql`select audit_record(${AUDIT.accountDeleted}, ${userId}::uuid, null, null, ${emailHash})`)
    },

    /** delete the rows older than AUDIT_RETENTION_DAYS; how many went */
    async prune (): Promise<number> {
      const [row] = await deps.database.query<{ n: string | number }>('select audit_prune($1::timestamptz) as n',
        [new Date(now() - deps.retentionDays * DAY_MS).toISOString()])
      return Number(row?.n ?? 0)
    }
  }
}

export type AuditService = ReturnType<typeof createAuditService>
