// Security notices (docs/operations.md, Support; docs/security.md, Notices): a mail to the account's
// own address when something important happens to it, naming what, when, the device and the IP
// address, with a link to the account page, and never a secret. They go through the one mail path
// (the outbox in development), after the answer has left: a slow mail server never delays a request.
import type { Database } from '../../db/client.ts'
import type { MailService } from '../accounts/mail.ts'
import { deviceName } from '../sessions/device-name.ts'

export interface Notice {
  /** what happened, as the holder reads it: "Your password was changed" */
  what: string
  /** the request that did it: its address and User-Agent (absent for an operator's command) */
  ip?: string | null
  userAgent?: string | null
  /** staff acted on the account: the mail says so and gives the reason they recorded */
  byStaff?: { reason: string }
}

export interface NoticeDeps {
  database: Database
  mail: Pick<MailService, 'sendLater'>
  publicUrl: string
  now?: () => number
}

export function createNotices (deps: NoticeDeps) {
  const now = deps.now ?? Date.now
  const accountPage = `${deps.publicUrl}/#/account`

  function text (notice: Notice, at: Date): string {
    const lines = [
      notice.what + '.',
      '',
      `When: ${at.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      `Device: ${deviceName(notice.userAgent ?? null) ?? (notice.userAgent ? 'an unknown device' : 'none (done by the service\'s operators)')}`,
      `IP address: ${notice.ip ?? 'none'}`
    ]
    if (notice.byStaff) lines.push(`Done by: our support staff, who recorded this reason: ${notice.byStaff.reason}`)
    lines.push('', 'If this was you, there is nothing to do.',
      `If it was not, change your password and review your sessions, API keys and webhooks: ${accountPage}`)
    return lines.join('\n') + '\n'
  }

  return {
    /**
     * Mail `notice` to the account's address, after the answer has left. An unknown (deleted) account
     * gets none. A disabled account's mails are held, but for the notices of staff actions: they are
     * how its holder learns what staff did, and why.
     */
    async send (userId: string, notice: Notice): Promise<void> {
      const [row] = await deps.database.query<{ email: string, disabled: boolean }>('select email, disabled_at is not null as disabled from users where id = $1', [userId])
      if (!row || (row.disabled && !notice.byStaff)) return
      deps.mail.sendLater({ to: row.email, subject: `Security notice: ${notice.what}`, text: text(notice, new Date(now())) })
    }
  }
}

export type Notices = ReturnType<typeof createNotices>
