// Whether a password was set by someone who controls the account's mailbox
// (docs/decisions/accounts.md, Account control: pre-hijacking). The confirmation link proves the
// mailbox; the browser's session proves the password, when that browser signed in to this account
// with it. Both in one browser: the password's setter read the mail, and the password is proven.
import type { Database } from '../../db/client.ts'
import { hashLinkSecret } from './link-secrets.ts'

export function createPasswordProof (deps: { database: Database, now?: () => number }) {
  const now = deps.now ?? Date.now
  return {
    /**
     * The confirmation link `secret` was opened with the session cookie of session `sid`: if that is a
     * live password session of the link's account, the account's password is proven. Whether it was.
     */
    async confirmedInSession (secret: string, sid: string | undefined): Promise<boolean> {
      if (!sid) return false
      const at = new Date(now()).toISOString()
      const rows = await deps.database.query<{ id: string }>(
        `update users u set password_proven = true
           from auth_tokens a, sessions s
          where a.hash = $1 and a.kind = 'confirm' and a.expires_at > $3::timestamptz and a.user_id = u.id
            and s.id = $2 and s.user_id = u.id and s.method = 'password'
            and s.ended_at is null and s.expires_at > $3::timestamptz
            and u.password_hash is not null and not u.password_proven
          returning u.id`,
        [hashLinkSecret(secret), sid, at]
      )
      return rows.length > 0
    }
  }
}

export type PasswordProof = ReturnType<typeof createPasswordProof>
