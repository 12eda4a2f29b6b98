// The alert digest mail (docs/decisions/watches-and-alerts.md, Watches and alerts): at most one
// mail per user every ALERT_DIGEST_INTERVAL_H hours, listing the user's alerts no digest has listed
// yet, new red flags first. A user's mail is claimed in one transaction: a conditional update of
// alert_mail.last_sent_at (which only one of two racing workers can make: the second waits for the
// first's row lock, then finds the interval not over) and the marking of the alerts it lists
// (alerts.mailed_at). The mail goes after the commit: a mail server that fails loses that digest
// rather than risk a second one.
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { alerts, alertMail, users } from '../../db/schema/index.ts'
import type { Mail } from '../accounts/mail.ts'
import { toAlert } from './record.ts'
import type { UnsubscribeTokens } from './unsubscribe-tokens.ts'
import type { Alert } from '../../../schemas/alerts.ts'

const FOREIGN_KEY_VIOLATION = '23503'

/** users read at once; a pass reads again until none is left */
const USERS_PER_PASS = 100

export interface DigestOptions {
  database: Database
  /** sends one mail (src/services/accounts/mail.ts) */
  send: (mail: Mail) => Promise<void>
  tokens: UnsubscribeTokens
  publicUrl: string
  /** the API's prefix, for the one-click unsubscribe URL */
  apiPrefix: string
  /** config.alerts.digestIntervalH */
  intervalH: number
  now?: () => number
  log: { error: (obj: object, msg: string) => void }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const names = (list: Alert['new']) => list.map((i) => i.name).join(', ')

/** the mail of these alerts: new red flags first, then the other changes, each with its report's link */
export function digestMail (to: string, list: readonly Alert[], links: { report: (reportId: string) => string, unsubscribe: string, oneClick: string }): Mail {
  const flagged = list.filter((a) => a.newRedFlags.length > 0)
  const others = list.filter((a) => a.newRedFlags.length === 0)
  const line = (a: Alert) => `- @${a.username} (${a.source}), ${a.month}: ` +
    (a.newRedFlags.length > 0 ? `red flags: ${names(a.newRedFlags)}; ` : '') +
    `${plural(a.new.length, 'new interest')}, ${plural(a.lost.length, 'lost interest')}\n  ${links.report(a.reportId)}`
  const parts = ['Your watched reports have changed.', '']
  if (flagged.length > 0) parts.push('New red flags', ...flagged.map(line), '')
  if (others.length > 0) parts.push(flagged.length > 0 ? 'Other changes' : 'Changes', ...others.map(line), '')
  parts.push('You get this digest at most once a day while your watched reports change.',
    `Stop these mails (no sign-in needed): ${links.unsubscribe}`)
  return {
    to,
    subject: flagged.length > 0
      ? `New red flags on your watched reports (${plural(list.length, 'alert')})`
      : `Changes on your watched reports (${plural(list.length, 'alert')})`,
    text: parts.join('\n') + '\n',
    // RFC 8058: a mail client's one-click unsubscribe POSTs to the first URL; nothing is done on a GET
    headers: { 'List-Unsubscribe': `<${links.oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
  }
}

export function createAlertDigest (opts: DigestOptions) {
  const { database } = opts
  const now = opts.now ?? Date.now
  const intervalMs = opts.intervalH * 3600_000
  // (a Date inside raw SQL is not a parameter every driver takes: the bounds go as ISO text, cast)

  /**
   * the users with alerts no digest listed, whose digest is on and whose interval is over; a
   * disabled account's alerts wait unmailed until it is enabled (its mails are held)
   */
  async function due (at: Date): Promise<string[]> {
    const since = new Date(at.getTime() - intervalMs)
    const rows = await database.db.selectDistinct({ userId: alerts.userId }).from(alerts)
      .leftJoin(alertMail, eq(alertMail.userId, alerts.userId))
      .innerJoin(users, eq(users.id, alerts.userId))
      .where(and(isNull(alerts.mailedAt), isNull(alertMail.unsubscribedAt), isNull(users.disabledAt),
        sql`(${alertMail.lastSentAt} is null or ${alertMail.lastSentAt} <= ${since.toISOString()}::timestamptz)`))
      .limit(USERS_PER_PASS)
    return rows.map((r) => r.userId)
  }

  /** claim this user's digest: the interval taken and the alerts marked, or null when another worker has it or there is nothing to list */
  async function claim (userId: string, at: Date): Promise<{ email: string, list: Alert[] } | null> {
    const since = new Date(at.getTime() - intervalMs)
    return await database.db.transaction(async (tx) => {
      const taken = await tx.insert(alertMail).values({ userId, lastSentAt: at })
        .onConflictDoUpdate({
          target: alertMail.userId,
          set: { lastSentAt: at },
          setWhere: sql`${alertMail.unsubscribedAt} is null and (${alertMail.lastSentAt} is null or ${alertMail.lastSentAt} <= ${since.toISOString()}::timestamptz)`
        }).returning({ userId: alertMail.userId })
      if (taken.length === 0) return null
      const rows = await tx.update(alerts).set({ mailedAt: at })
        .where(and(eq(alerts.userId, userId), isNull(alerts.mailedAt))).returning()
      const [user] = await tx.select({ email: users.email }).from(users).where(and(eq(users.id, userId), isNull(users.disabledAt)))
      if (rows.length === 0 || !user) {
        // nothing to list after all, or the account was disabled meanwhile: the interval is not spent, the alerts wait
        tx.rollback()
      }
      rows.sort((a, b) => a.seq - b.seq)
      return { email: user.email, list: rows.map(toAlert) }
    }).catch((err: unknown) => {
      if ((err as Error).name === 'TransactionRollbackError') return null
      throw err
    })
  }

  const links = (userId: string) => {
    const token = opts.tokens.sign(userId)
    return {
      report: (reportId: string) => `${opts.publicUrl}/#/report/${reportId}`,
      unsubscribe: `${opts.publicUrl}/unsubscribe/${token}`,
      oneClick: `${opts.publicUrl}${opts.apiPrefix}/alerts/mail/unsubscribe/${token}`
    }
  }

  return {
    /** one pass: every due user's digest claimed and sent; how many mails went */
    async sendDue (): Promise<number> {
      const at = new Date(now())
      let sent = 0
      // batch after batch: a claimed user is no longer due, so each read finds the next ones
      for (;;) {
        const batch = await due(at)
        let claimedAny = false
        for (const userId of batch) {
          const claimed = await claim(userId, at)
          if (!claimed) continue
          claimedAny = true
          try {
            await opts.send(digestMail(claimed.email, claimed.list, links(userId)))
            sent++
          } catch (err) {
            opts.log.error({ err: { message: (err as Error).message }, userId }, 'alert digest not sent')
          }
        }
        if (batch.length < USERS_PER_PASS || !claimedAny) return sent
      }
    },

    /** stop (or restart) this user's digest; by the mail's token or the account's own setting */
    async setDigest (userId: string, on: boolean): Promise<void> {
      const unsubscribedAt = on ? null : new Date(now())
      await database.db.insert(alertMail).values({ userId, unsubscribedAt })
        .onConflictDoUpdate({ target: alertMail.userId, set: { unsubscribedAt } })
    },

    /**
     * stop this user's digest by the mail's link; false when the account no longer exists (deleted
     * since the mail went: its alert_mail row went with it, and no row may name it again)
     */
    async unsubscribe (userId: string): Promise<boolean> {
      try {
        const rows = await database.query<{ user_id: string }>(
          `insert into alert_mail (user_id, unsubscribed_at) select id, $2 from users where id = $1
           on conflict (user_id) do update set unsubscribed_at = excluded.unsubscribed_at returning user_id`,
          [userId, new Date(now()).toISOString()])
        return rows.length > 0
      } catch (err) {
        // the account was deleted between the select and the insert's foreign-key check
        if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false
        throw err
      }
    },

    /** whether this user gets the digest */
    async digestOn (userId: string): Promise<boolean> {
      const [row] = await database.db.select({ unsubscribedAt: alertMail.unsubscribedAt }).from(alertMail).where(eq(alertMail.userId, userId))
      return !row?.unsubscribedAt
    }
  }
}

export type AlertDigest = ReturnType<typeof createAlertDigest>
