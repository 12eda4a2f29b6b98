// What staff read of the accounts (docs/operations.md, Support): the list and search of addresses,
// and one account's page. Reads only; the actions on an account are in ./actions*.ts.
import { and, count, desc, eq, gt, ilike, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { apiKeys, reports, sessions, users, watches, webhookEndpoints } from '../../db/schema/index.ts'
import { currentSubscriptionStatusSql } from '../billing/subscription-state.ts'
import { mfaStatusColumns } from '../mfa/index.ts'
import { deviceName } from '../sessions/device-name.ts'
import type { Role } from './roles.ts'

export type UserStatus = 'active' | 'disabled' | 'unconfirmed'

export interface UserQuery { q?: string, email?: string, status?: UserStatus, offset: number, limit: number }

const iso = (d: Date | string | null): string | null => d === null ? null : new Date(d).toISOString()

/**
 * `q` as an ILIKE pattern matching it anywhere in the address: its own `%`, `_` and `\` match
 * themselves (backslash is ILIKE's escape character). The pg_trgm index users_email_trgm_idx serves
 * it from three characters on.
 */
export function containsPattern (q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => '\\' + c)}%`
}

const STATUS: Record<UserStatus, SQL> = {
  active: and(isNull(users.disabledAt), isNotNull(users.confirmedAt))!,
  disabled: isNotNull(users.disabledAt),
  unconfirmed: and(isNull(users.disabledAt), isNull(users.confirmedAt))!
}

// the owner column written with its table: inside the subqueries a bare "id" would name their own
const owner = sql.raw('"users"."id"')

/** an account as the staff list shows it: the columns of one query, a page at a time */
const listColumns = () => {
  const mfa = mfaStatusColumns(users.id)
  return {
    id: users.id,
    email: users.email,
    confirmedAt: users.confirmedAt,
    role: users.role,
    disabledAt: users.disabledAt,
    createdAt: users.createdAt,
    // every sign-in (password, Google, passkey, recovery link) starts a session; their rows are kept
    lastSignInAt: sql<Date | string | null>`(select max(${sessions.createdAt}) from ${sessions} where ${sessions.userId} = ${owner})`,
    credits: users.reportCredits,
    subscription: currentSubscriptionStatusSql(owner),
    totp: mfa.totp,
    passkeys: mfa.passkeys,
    acquisitionCode: users.acquisitionCode
  }
}

interface ListRow {
  id: string, email: string, confirmedAt: Date | null, role: Role, disabledAt: Date | null, createdAt: Date,
  lastSignInAt: Date | string | null, credits: number, subscription: string | null, totp: boolean, passkeys: number, acquisitionCode: string | null
}

function listItem (r: ListRow) {
  return {
    id: r.id,
    email: r.email,
    confirmed: r.confirmedAt !== null,
    role: r.role,
    disabled: r.disabledAt !== null,
    createdAt: iso(r.createdAt)!,
    lastSignInAt: iso(r.lastSignInAt),
    credits: r.credits,
    subscription: r.subscription === null ? null : { status: r.subscription },
    mfa: { totp: Boolean(r.totp), passkeys: Number(r.passkeys) }
  }
}

export type StaffUserItem = ReturnType<typeof listItem>

export function createStaffUsers (deps: { database: Database, now?: () => number }) {
  const db = deps.database.db
  const now = deps.now ?? Date.now

  async function item (userId: string): Promise<(StaffUserItem & { acquisitionCode: string | null }) | null> {
    const [row] = await db.select(listColumns()).from(users).where(eq(users.id, userId)) as ListRow[]
    return row ? { ...listItem(row), acquisitionCode: row.acquisitionCode } : null
  }

  return {
    /** a page of accounts, newest first: `q` a case-insensitive part of the address, `email` the whole of it, `status` one state */
    async list (query: UserQuery) {
      const where = and(
        query.q ? ilike(users.email, containsPattern(query.q)) : undefined,
        // addresses are stored lowercase: the unique index answers this one
        query.email ? eq(users.email, query.email.trim().toLowerCase()) : undefined,
        query.status ? STATUS[query.status] : undefined
      )
      const [rows, [{ n }]] = await Promise.all([
        db.select(listColumns()).from(users).where(where)
          .orderBy(desc(users.createdAt), desc(users.id)).limit(query.limit).offset(query.offset) as Promise<ListRow[]>,
        db.select({ n: count() }).from(users).where(where)
      ])
      return { items: rows.map(listItem), total: n, hasMore: query.offset + rows.length < n }
    },

    /** an account as the list shows it (null: no such account) */
    async item (userId: string): Promise<StaffUserItem | null> {
      const found = await item(userId)
      if (!found) return null
      const { acquisitionCode: _, ...rest } = found
      return rest
    },

    /** the account's page: what the list shows, its live sessions, keys and endpoints, and its counts */
    async detail (userId: string) {
      const base = await item(userId)
      if (!base) return null
      const at = new Date(now())
      const [live, keys, hooks, [reportCount], [watchCount]] = await Promise.all([
        db.select({ id: sessions.publicId, userAgent: sessions.userAgent, ip: sessions.ipPrefix, createdAt: sessions.createdAt, lastUsedAt: sessions.lastUsedAt })
          .from(sessions)
          .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt), gt(sessions.expiresAt, at)))
          .orderBy(desc(sessions.createdAt)),
        db.select({ id: apiKeys.id, name: apiKeys.name, scopes: apiKeys.scopes, prefix: apiKeys.prefix, lastUsedAt: apiKeys.lastUsedAt })
          .from(apiKeys)
          .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, at))))
          .orderBy(desc(apiKeys.createdAt)),
        db.select({ id: webhookEndpoints.id, url: webhookEndpoints.url, events: webhookEndpoints.events, disabledAt: webhookEndpoints.disabledAt })
          .from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(webhookEndpoints.createdAt),
        db.select({ n: count() }).from(reports).where(eq(reports.userId, userId)),
        db.select({ n: count() }).from(watches).where(eq(watches.userId, userId))
      ])
      return {
        ...base,
        sessions: live.map((s) => ({ id: s.id, device: deviceName(s.userAgent), ip: s.ip, createdAt: iso(s.createdAt)!, lastUsedAt: iso(s.lastUsedAt) })),
        apiKeys: keys.map((k) => ({ ...k, lastUsedAt: iso(k.lastUsedAt) })),
        webhooks: hooks.map((h) => ({ id: h.id, url: h.url, events: h.events, disabled: h.disabledAt !== null })),
        reports: reportCount.n,
        watches: watchCount.n
      }
    }
  }
}

export type StaffUsers = ReturnType<typeof createStaffUsers>
