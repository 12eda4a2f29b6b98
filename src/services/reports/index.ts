// Reports (docs/architecture.md, HTTP contract): creation, the generate state machine with its credit, listing, reading and
// deletion. Generation itself is src/services/reports/generation.ts, run by the queue's workers.
import { randomUUID } from 'node:crypto'
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { profiles, reports, subscriptions, users } from '../../db/schema/index.ts'
import { isUuid, SOURCES, type Source } from '../../../schemas/common.ts'
import type { Category, FriendDetail, ReportProfile, SourceProfile } from '../../../schemas/report.ts'
import { resolveFriendInterests, type FriendInterestIds, type FriendInterests, type FriendLists } from '../../engine/index.ts'
import { AlreadyGenerated, BadRequest, notFound, NotOwner, PaymentRequired } from '../../errors.ts'
import { announce, appendEvent } from './events.ts'
import { entitlingSubscriptionOf } from '../billing/subscription-state.ts'
import { createViewCache } from '../caches/view-cache.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import type { EventPublisher } from '../events/transport.ts'

/** the NOTIFY channel of drizzle/0003's trigger: the id of a ready report that changed (was deleted) */
export const REPORT_CHANGED_CHANNEL = 'report_changed'

/** what a report stores of each of its profiles, in source order */
export interface StoredProfile extends ReportProfile { profileId: string }

export interface ReportQueue {
  /** queue the generation job; idempotent for one jobId */
  send: (reportId: string, jobId: string) => Promise<void>
}

const sourceRank = (s: string) => SOURCES.indexOf(s as Source)

export function createReportService (deps: {
  database: Database
  queue: ReportQueue
  now?: () => number
  /** told when a user's credits change here (src/services/accounts/changes.ts) */
  accountChanges: Pick<AccountChanges, 'changed'>
  /** where a queued report's first event is announced (the instance's events transport) */
  events: Pick<EventPublisher, 'publish'>
}) {
  const { database } = deps
  const db = database.db
  const now = () => new Date((deps.now ?? Date.now)())

  /** the state GET /report/{id} answers with: one query, the stored bytes and ETag included once ready */
  async function loadRead (reportId: string) {
    const [row] = await db.select({
      userId: reports.userId, status: reports.status, progress: reports.progress, createdAt: reports.createdAt,
      body: reports.body, etag: reports.etag
    }).from(reports).where(eq(reports.id, reportId))
    if (!row) return null
    const ready = row.status === 'ready' && row.body !== null && row.etag !== null
    return { ...row, body: ready ? Buffer.from(row.body!) : null }
  }

  // A ready report never changes, it can only be deleted: its bytes are kept in memory, as a Buffer
  // that goes out as it is, until it is deleted here or a NOTIFY says so (src/services/caches/view-cache.ts).
  const readView = createViewCache({
    load: loadRead,
    keep: (r) => r !== null && r.body !== null,
    bytes: (r) => (r?.body?.length ?? 0) + 256,
    maxBytes: 64 * 1024 * 1024,
    maxEntries: 10_000,
    ttlMs: 60_000
  })

  /** the report if it is this user's: 404 when unknown, 403 when another user's */
  async function owned (userId: string, reportId: string) {
    // an id that is not a UUID is not looked up: 404 like an unknown one
    const [found] = isUuid(reportId)
      ? await db.select({
        id: reports.id, userId: reports.userId, status: reports.status, progress: reports.progress,
        profiles: reports.profiles, createdAt: reports.createdAt, generatedAt: reports.generatedAt, etag: reports.etag
      }).from(reports).where(eq(reports.id, reportId))
      : []
    const row = ownedBy(userId, found)
    return { ...row, profiles: row.profiles as StoredProfile[] }
  }

  /** 404 when there is no such report, 403 when it is another user's */
  function ownedBy<R extends { userId: string }> (userId: string, row: R | null | undefined): R {
    if (!row) throw notFound('report not found')
    if (row.userId !== userId) throw new NotOwner()
    return row
  }

  /** the source a detail route reads: 404 when the report has no profile there or is not ready */
  async function readySource (userId: string, reportId: string, source: Source | undefined): Promise<Source> {
    const r = await owned(userId, reportId)
    const src = source ?? (r.profiles[0]?.source as Source)
    if (!r.profiles.some((p) => p.source === src)) throw notFound(`the report has no profile on ${src}`)
    if (r.status !== 'ready') throw notFound('the report is not ready')
    return src
  }

  const publicProfiles = (list: StoredProfile[]): ReportProfile[] =>
    list.map(({ source, username, fullname, image }) => ({ source, username, fullname, image }))

  return {
    owned,

    async create (userId: string, wanted: Array<{ source: Source, username: string }>) {
      const seen = new Set<string>()
      for (const p of wanted) {
        if (seen.has(p.source)) throw new BadRequest(`at most one profile per source: ${p.source} appears twice`)
        seen.add(p.source)
      }
      const found: StoredProfile[] = []
      for (const p of wanted) {
        const [row] = await db.select().from(profiles)
          .where(and(eq(profiles.source, p.source), sql`lower(${profiles.username}) = lower(${p.username})`))
        if (!row) throw notFound(`profile not found: ${p.source}/${p.username}`)
        found.push({ source: p.source, username: row.username, fullname: row.fullname, image: row.image, profileId: row.id })
      }
      found.sort((a, b) => sourceRank(a.source) - sourceRank(b.source))
      const [report] = await db.insert(reports).values({ userId, profiles: found, createdAt: now() })
        .returning({ id: reports.id, createdAt: reports.createdAt })
      return { id: report.id, status: 'draft' as const, createdAt: report.createdAt.toISOString(), profiles: publicProfiles(found) }
    },

    /**
     * draft/failed -> queued, taking one credit unless the user has an active subscription;
     * queued -> its job sent again (a no-op when it is there), 202 again; generating -> 202 again;
     * ready -> 403. The conditional UPDATE on the report
     * row makes concurrent calls queue behind one winner, so a credit is never taken twice.
     */
    async generate (userId: string, reportId: string) {
      await owned(userId, reportId)
      const result = await db.transaction(async (tx) => {
        const [claimed] = await tx.update(reports)
          .set({ status: 'queued', progress: 0, stage: 'queued', error: null, jobId: randomUUID() })
          .where(and(eq(reports.id, reportId), inArray(reports.status, ['draft', 'failed'])))
          .returning({ jobId: reports.jobId })
        if (!claimed) {
          const [current] = await tx.select({ status: reports.status, jobId: reports.jobId }).from(reports).where(eq(reports.id, reportId))
          if (!current) throw notFound('report not found')
          if (current.status === 'ready') throw new AlreadyGenerated()
          return { queued: false as const, status: current.status, jobId: current.jobId }
        }
        const [sub] = await tx.select({ status: subscriptions.status }).from(subscriptions)
          .where(entitlingSubscriptionOf(userId))
        let creditHeld = false
        if (!sub) {
          const [paid] = await tx.update(users).set({ reportCredits: sql`${users.reportCredits} - 1` })
            .where(and(eq(users.id, userId), sql`${users.reportCredits} > 0`)).returning({ id: users.id })
          if (!paid) throw new PaymentRequired() // rolls the claim back
          creditHeld = true
        }
        await tx.update(reports).set({ creditHeld }).where(eq(reports.id, reportId))
        const seq = await appendEvent(tx, reportId, 'status', { reportId, status: 'queued', progress: 0, stage: 'queued' })
        return { queued: true as const, jobId: claimed.jobId!, seq, creditHeld }
      })
      if (result.queued) {
        if (result.creditHeld) deps.accountChanges.changed(userId)
        await announce(deps.events, reportId, [result.seq])
        await deps.queue.send(reportId, result.jobId)
      } else if (result.status === 'queued' && result.jobId) {
        // The call that queued it committed, then its send may have failed (the database went away
        // between the two, or the process died): the job is sent again before another 202, so a 202
        // always has a job behind it. The same id makes this a no-op when the job is there.
        await deps.queue.send(reportId, result.jobId)
      }
      return { id: reportId, status: 'queued' as const }
    },

    async list (userId: string, offset: number, limit: number) {
      const [{ total }] = await db.select({ total: count() }).from(reports).where(eq(reports.userId, userId))
      const rows = await db.select({
        id: reports.id, status: reports.status, createdAt: reports.createdAt, generatedAt: reports.generatedAt, profiles: reports.profiles
      }).from(reports).where(eq(reports.userId, userId))
        .orderBy(desc(reports.createdAt), desc(reports.id)).offset(offset).limit(limit)
      return {
        items: rows.map((r) => ({
          id: r.id,
          status: r.status,
          createdAt: r.createdAt.toISOString(),
          generatedAt: r.generatedAt?.toISOString() ?? null,
          profiles: publicProfiles(r.profiles as StoredProfile[])
        })),
        total,
        hasMore: offset + rows.length < total
      }
    },

    /** a ready report's stored bytes and ETag, or the state of one that is not ready yet */
    async read (userId: string, reportId: string) {
      const r = ownedBy(userId, isUuid(reportId) ? await readView.get(reportId) : null)
      if (r.body !== null) return { ready: true as const, body: r.body, etag: r.etag! }
      return {
        ready: false as const,
        report: { id: reportId, status: r.status, progress: r.progress, createdAt: r.createdAt.toISOString(), generatedAt: null, items: [] }
      }
    },

    /** the stored per-source detail (tree, friends, diffs) of a ready report */
    async detail<T> (userId: string, reportId: string, source: Source | undefined, part: 'tree' | 'friends' | 'diffs'): Promise<{
      source: Source, part: T, sourceProfile: SourceProfile, availableSources: Source[]
    }> {
      const src = await readySource(userId, reportId, source)
      const [row] = await database.query<{ part: T, profile: SourceProfile, available: Source[] }>(
        `select details -> $2 -> $3 as part, details -> $2 -> 'sourceProfile' as profile,
                details -> 'availableSources' as available
           from reports where id = $1`, [reportId, src, part])
      return { source: src, part: row.part, sourceProfile: row.profile, availableSources: row.available ?? [] }
    },

    /**
     * one friend of a ready report and the interests behind its counts, under the rules of detail();
     * lists absent when the report was generated before it kept the ids
     */
    async friendDetail (userId: string, reportId: string, source: Source | undefined, friendId: string): Promise<FriendDetail> {
      const src = await readySource(userId, reportId, source)
      const [row] = await database.query<{ friends: FriendLists | null, tree: Category[] | null, ids: FriendInterestIds | null, names: FriendInterests['redFlagNames'] | null }>(
        `select details -> $2 -> 'friends' as friends, details -> $2 -> 'tree' as tree,
                details -> $2 -> 'friendInterests' -> 'byFriend' -> $3 as ids,
                details -> $2 -> 'friendInterests' -> 'redFlagNames' as names
           from reports where id = $1`, [reportId, src, friendId])
      const friend = row?.friends?.common.find((f) => f.id === friendId) ?? row?.friends?.redFlags.find((f) => f.id === friendId)
      if (!friend) throw notFound('friend not found')
      if (!row.ids) return { friend }
      return { friend, ...resolveFriendInterests(row.tree ?? [], row.ids, row.names ?? {}, src) }
    },

    /** a ready report's stored body and everything it stores per source, for an export */
    async exportData (userId: string, reportId: string): Promise<{ body: string, details: Record<string, unknown> }> {
      const r = await owned(userId, reportId)
      if (r.status !== 'ready') throw notFound('the report is not ready')
      const [row] = await database.query<{ body: string | null, details: Record<string, unknown> | null }>(
        'select body, details from reports where id = $1', [reportId])
      // deleted since, or (never) ready without its stored parts
      if (!row?.body || !row.details) throw notFound('report not found')
      return { body: row.body, details: row.details }
    },

    async remove (userId: string, reportId: string): Promise<void> {
      await owned(userId, reportId)
      await db.delete(reports).where(eq(reports.id, reportId))
      readView.invalidate(reportId)
    },

    /** a ready report changed elsewhere (NOTIFY report_changed) */
    changed: (reportId: string) => { readView.invalidate(reportId) },
    /** the LISTEN connection (re)connected: notifications may have been missed */
    forgetAll: () => { readView.clear() }
  }
}

export type ReportService = ReturnType<typeof createReportService>
