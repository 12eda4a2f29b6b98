// The in-memory set of ended sessions that every Bearer request is checked against without a database
// round trip. However a session ends (here, in another instance, in psql, by its user's deletion, by
// its expires_at moved into the past), the sessions table's triggers record it in
// session_revocations and NOTIFY every instance in the same transaction (drizzle/0005, drizzle/0012),
// which adds it to its set within milliseconds. Every SESSION_RECONCILE_S each instance also reads
// the revocations committed since its previous read, by transaction rather than by time (a cursor:
// src/db/commits.ts), so a NOTIFY that never arrives costs at most that long, however late its
// transaction committed. An entry is forgotten once no JWT of its session can still be unexpired.
//
// The set is trusted alone only while the reconcile keeps up: once none has succeeded for
// RECONCILES_BEFORE_STALE intervals, inSync() says false and each Bearer request asks the database
// (endedInDatabase) until one succeeds again (docs/decisions/sessions.md, Revocation cursor).
import type { Database } from '../../db/client.ts'
import { committedAfter, SNAPSHOT_SQL } from '../../db/commits.ts'
import { isUuid } from '../../../schemas/common.ts'

/**
 * How far back each reconcile reads expiries before its previous one: an expiry is stamped by an
 * instance's clock, and instances' clocks may differ by this much.
 */
const EXPIRY_OVERLAP_MS = 60_000

/** reconcile intervals without a successful read after which the set is not trusted alone */
export const RECONCILES_BEFORE_STALE = 3

export interface EndedSessionsDeps {
  database: Database
  jwtTtlSeconds: number
  /** SESSION_RECONCILE_S */
  reconcileS: number
  now: () => number
}

export function createEndedSessions (deps: EndedSessionsDeps) {
  const { database, now } = deps
  const ttlMs = deps.jwtTtlSeconds * 1000
  const staleAfterMs = RECONCILES_BEFORE_STALE * deps.reconcileS * 1000
  // publicId -> when it can be forgotten (no JWT of it can still be unexpired by then)
  const ended = new Map<string, number>()
  // told of each session once, when this instance learns it ended (its open streams close)
  const listeners = new Set<(publicId: string) => void>()
  // where the last read stopped: the database's snapshot for revocations, our clock for expiries
  let cursor: { snapshot: string, expiresAt: number } | undefined
  // whether the last successful read began less than staleAfterMs ago (real time: a timer flips it)
  let inSync = false
  let staleTimer: ReturnType<typeof setTimeout> | undefined
  // reads run one at a time: each one starts from where the previous one stopped
  let queue: Promise<void> = Promise.resolve()

  function mark (publicId: string) {
    const known = ended.has(publicId)
    ended.set(publicId, now() + ttlMs)
    if (!known) for (const fn of listeners) fn(publicId)
  }

  /** a read that began at startedAt succeeded: the set is trusted alone until staleAfterMs after it */
  function synced (startedAt: number) {
    clearTimeout(staleTimer)
    const left = startedAt + staleAfterMs - Date.now()
    inSync = left > 0
    if (!inSync) return
    staleTimer = setTimeout(() => { inSync = false }, left)
    staleTimer.unref()
  }

  /**
   * One statement, so its snapshot is the one it reads with: everything ended that the previous
   * snapshot did not see (all within JWT_TTL on the first read), and the sessions expired in
   * (expiredSince, now]. Rows ended before the trigger recorded revocations are found on the first
   * read by ended_at.
   */
  async function read (): Promise<void> {
    const startedAt = Date.now()
    const until = now()
    const from = cursor
    const expiredSince = from ? from.expiresAt - EXPIRY_OVERLAP_MS : until - ttlMs
    const [row] = from
      ? await database.query<{ snapshot: string, ids: string[] | null }>(
        `select ${SNAPSHOT_SQL} as snapshot, array(
           select public_id::text from session_revocations where ${committedAfter('txid', '$1')}
           union select public_id::text from sessions where expires_at > $2 and expires_at <= $3
         ) as ids`,
        [from.snapshot, new Date(expiredSince).toISOString(), new Date(until).toISOString()])
      : await database.query<{ snapshot: string, ids: string[] | null }>(
        `select ${SNAPSHOT_SQL} as snapshot, array(
           select public_id::text from session_revocations where revoked_at > clock_timestamp() - make_interval(secs => $3)
           union select public_id::text from sessions where expires_at > $1 and expires_at <= $2
           union select public_id::text from sessions where ended_at > $1
         ) as ids`,
        [new Date(expiredSince).toISOString(), new Date(until).toISOString(), deps.jwtTtlSeconds])
    for (const id of row.ids ?? []) mark(id)
    cursor = { snapshot: row.snapshot, expiresAt: until }
    synced(startedAt)
  }

  // reads since start and the ones that failed, for the metrics (docs/operations.md, What to alert on)
  const counts = { runs: 0, failures: 0 }

  /** run a read after any that is under way */
  function queued (): Promise<void> {
    const next = queue.then(async () => {
      counts.runs++
      try {
        await read()
      } catch (err) {
        counts.failures++
        throw err
      }
    })
    queue = next.catch(() => {})
    return next
  }

  return {
    has: (publicId: string) => ended.has(publicId),
    /**
     * whether the set can be trusted alone: a reconcile succeeded within the last
     * RECONCILES_BEFORE_STALE x SESSION_RECONCILE_S. One boolean, read on every Bearer request.
     */
    inSync: () => inSync,
    /** reads since start (the first load and every reconcile) and how many of them failed */
    reconciles: () => ({ ...counts }),
    /** mark sessions ended: by this instance (the trigger's NOTIFY to it is not waited for), or by a NOTIFY */
    mark: (publicIds: string[]) => { for (const id of publicIds) mark(id) },
    /** fn(publicId) once for each session this instance learns has ended, however it learns it */
    onEnded: (fn: (publicId: string) => void) => { listeners.add(fn) },
    /** the first read: every session ended or expired recently enough for one of its JWTs to be unexpired */
    load: queued,
    /** read what was committed since the last read (what expired since, by our clock, with an overlap) */
    reconcile: queued,
    /**
     * Whether a session (or API key) has ended, asked of the database: for a request that arrives
     * while the set is not in sync. Its answer is marked, so the set learns it too. A sid not in the
     * form the service prints (isUuid, the same rule src/plugins/jwt.ts refuses a token by) names
     * nothing the set or the database holds, and is ended.
     */
    async endedInDatabase (publicId: string): Promise<boolean> {
      if (!isUuid(publicId)) return true
      const [row] = await database.query<{ ended: boolean }>(
        `select exists (select 1 from session_revocations where public_id = $1)
             or exists (select 1 from sessions where public_id = $1 and (ended_at is not null or expires_at <= $2)) as ended`,
        [publicId, new Date(now()).toISOString()])
      if (row.ended) mark(publicId)
      return row.ended
    },
    /** forget revocations no JWT can outlive any more; any instance may run it, any number of times */
    async pruneRevocations (): Promise<void> {
      await database.query('delete from session_revocations where revoked_at < clock_timestamp() - make_interval(secs => $1)', [deps.jwtTtlSeconds])
    },
    /** forget the ended sessions no JWT can outlive any more */
    prune (): void {
      const t = now()
      for (const [id, until] of ended) if (until <= t) ended.delete(id)
    },
    /** stop the timer that marks the set out of sync */
    stop (): void {
      clearTimeout(staleTimer)
    }
  }
}

export type EndedSessions = ReturnType<typeof createEndedSessions>
