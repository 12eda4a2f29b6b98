// The audit log as staff read it (docs/operations.md, Support): every account's rows, newest first,
// filtered by the account, the staff member who acted, the kind and a time range.
import { and, count, desc, eq, gte, like, lt, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { auditEvents } from '../../db/schema/index.ts'
import { deviceName } from '../sessions/device-name.ts'
import { containsPattern } from './users.ts'

export interface AuditQuery {
  userId?: string
  actorId?: string
  /** a kind (`signin.failure`), or every kind under a prefix (`admin.*`) */
  kind?: string
  /** from (inclusive) and to (exclusive) */
  from?: string
  to?: string
  offset: number
  limit: number
}

const iso = (d: Date | string) => new Date(d).toISOString()

function kindFilter (kind: string): SQL {
  if (!kind.endsWith('.*')) return eq(auditEvents.kind, kind)
  // `admin.*`: the prefix with its dot, its own % and _ literal
  return like(auditEvents.kind, containsPattern(kind.slice(0, -1)).slice(1))
}

export function createStaffAuditLog (deps: { database: Database }) {
  const db = deps.database.db
  return {
    async list (query: AuditQuery) {
      const where = and(
        query.userId ? eq(auditEvents.userId, query.userId) : undefined,
        query.actorId ? eq(auditEvents.actorId, query.actorId) : undefined,
        query.kind ? kindFilter(query.kind) : undefined,
        query.from ? gte(auditEvents.createdAt, new Date(query.from)) : undefined,
        query.to ? lt(auditEvents.createdAt, new Date(query.to)) : undefined
      )
      const [rows, [{ n }]] = await Promise.all([
        db.select({
          id: auditEvents.id, kind: auditEvents.kind, userId: auditEvents.userId, actorId: auditEvents.actorId,
          ip: auditEvents.ip, userAgent: auditEvents.userAgent, createdAt: auditEvents.createdAt, details: auditEvents.details
        }).from(auditEvents).where(where).orderBy(desc(auditEvents.createdAt), desc(auditEvents.id)).limit(query.limit).offset(query.offset),
        db.select({ n: count() }).from(auditEvents).where(where)
      ])
      return {
        items: rows.map((r) => ({
          id: Number(r.id),
          kind: r.kind,
          userId: r.userId,
          actorId: r.actorId,
          ip: r.ip,
          device: deviceName(r.userAgent),
          createdAt: iso(r.createdAt),
          details: (r.details ?? null) as Record<string, unknown> | null
        })),
        total: n,
        hasMore: query.offset + rows.length < n
      }
    }
  }
}

export type StaffAuditLog = ReturnType<typeof createStaffAuditLog>
