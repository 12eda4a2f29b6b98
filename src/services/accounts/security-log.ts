// The holder's security log (docs/security.md, The security log): the account's own audit rows of
// the kinds a person would want to review, newest first. Rows of other kinds (a TOTP set-up begun,
// a deletion's last row) stay for operators alone. A row written by staff says so, and shows neither
// the staff member's device nor their address (docs/decisions/accounts.md, Security notices).
import type { Database } from '../../db/client.ts'
import { deviceName } from '../sessions/device-name.ts'
import { AUDIT } from './audit.ts'

/** the kinds the holder sees, besides every staff action (admin.*) */
export const SECURITY_LOG_KINDS: readonly string[] = [
  AUDIT.signup, AUDIT.confirm,
  AUDIT.signinSuccess, AUDIT.signinFailure, AUDIT.mfaVerifySuccess, AUDIT.mfaVerifyFailure, AUDIT.signout,
  AUDIT.passwordChange, AUDIT.passwordReset, AUDIT.passwordRemoved, AUDIT.idpLink, AUDIT.idpUnlink,
  AUDIT.mfaTotpConfirm, AUDIT.mfaTotpRemove, AUDIT.passkeyAdded, AUDIT.passkeyRemoved, AUDIT.mfaFactorsRemoved,
  AUDIT.apiKeyCreate, AUDIT.apiKeyRevoke, AUDIT.webhookCreate, AUDIT.webhookDisable,
  AUDIT.sessionEnd
]

export interface SecurityEvent {
  kind: string
  createdAt: string
  device: string | null
  ip: string | null
  by: 'you' | 'staff'
}

// audit_events_user_idx finds the account's rows; an account's log is hundreds of rows, not millions
const WHERE = "user_id = $1 and (kind = any($2::text[]) or kind like 'admin.%')"

export function createSecurityLog (deps: { database: Database }) {
  return {
    /** a page of `userId`'s own events, newest first, and how many there are */
    async list (userId: string, offset: number, limit: number): Promise<{ items: SecurityEvent[], total: number, hasMore: boolean }> {
      const kinds = [...SECURITY_LOG_KINDS]
      const [rows, [count]] = await Promise.all([
        deps.database.query<{ kind: string, created_at: Date | string, user_agent: string | null, ip: string | null, actor_id: string | null }>(
          `select kind, created_at, user_agent, ip, actor_id from audit_events where ${WHERE}
            order by created_at desc, id desc offset $3 limit $4`, [userId, kinds, offset, limit]),
        deps.database.query<{ n: number | string }>(`select count(*) as n from audit_events where ${WHERE}`, [userId, kinds])
      ])
      const total = Number(count?.n ?? 0)
      const items = rows.map((r): SecurityEvent => {
        const staff = r.actor_id !== null
        return {
          kind: r.kind,
          createdAt: new Date(r.created_at).toISOString(),
          device: staff ? null : deviceName(r.user_agent),
          ip: staff ? null : r.ip,
          by: staff ? 'staff' : 'you'
        }
      })
      return { items, total, hasMore: offset + items.length < total }
    }
  }
}

export type SecurityLog = ReturnType<typeof createSecurityLog>
