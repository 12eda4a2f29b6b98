// The in-memory set of ended sessions that every Bearer request is checked against without a database
// round trip. However a session ends (here, in another instance, in psql, by its user's deletion),
// the sessions table's trigger records it in session_revocations and NOTIFYs every instance in the
// same transaction (drizzle/0005), which adds it to its set within milliseconds; every
// SESSION_RECONCILE_S each instance also reads what was recorded since its last look, so a NOTIFY
// that never arrives (a LISTEN connection that dropped it) costs at most that long. An entry is
// forgotten once no JWT of its session can still be unexpired.
import type { Database } from '../../db/client.ts'

/**
 * How far back each reconcile reads before its previous one: a revocation is stamped when its
 * statement runs but seen only once its transaction commits, and an expiry is stamped by an
 * instance's clock. Both may trail by this much and still be found.
 */
const RECONCILE_OVERLAP_MS = 60_000

export interface EndedSessionsDeps {
  database: Database
  jwtTtlSeconds: number
  now: () => number
}

export function createEndedSessions (deps: EndedSessionsDeps) {
  const { database, now } = deps
  const ttlMs = deps.jwtTtlSeconds * 1000
  // publicId -> when it can be forgotten (no JWT of it can still be unexpired by then)
  const ended = new Map<string, number>()
  // told of each session once, when this instance learns it ended (its open streams close)
  const listeners = new Set<(publicId: string) => void>()
  // where the last reconcile stopped: the database's clock for revocations, ours for expiries
  let checked: { revokedAt: Date, expiresAt: number } | undefined

  function mark (publicId: string) {
    const known = ended.has(publicId)
    ended.set(publicId, now() + ttlMs)
    if (!known) for (const fn of listeners) fn(publicId)
  }

  /** every session recorded as ended after revokedSince, or expired in (expiredSince, now] */
  async function readEnded (revokedSince: Date, expiredSince: number, endedSince?: Date): Promise<void> {
    const until = now()
    const [row] = await database.query<{ at: Date | string, ids: string[] | null }>(
      `select clock_timestamp() as at, array(
         select public_id::text from session_revocations where revoked_at > $1
         union select public_id::text from sessions where expires_at > $2 and expires_at <= $3
         union select public_id::text from sessions where $4::timestamptz is not null and ended_at > $4
       ) as ids`,
      [revokedSince.toISOString(), new Date(expiredSince).toISOString(), new Date(until).toISOString(), endedSince?.toISOString() ?? null])
    for (const id of row.ids ?? []) mark(id)
    checked = { revokedAt: new Date(row.at), expiresAt: until }
  }

  /**
   * (re)load every session ended or expired recently enough for one of its JWTs to be unexpired:
   * the revocations recorded within JWT_TTL (by the database's clock), and the sessions that ended
   * or expired within it (rows ended before the trigger recorded revocations are found there).
   */
  async function load (): Promise<void> {
    const [{ at }] = await database.query<{ at: Date | string }>('select clock_timestamp() as at')
    await readEnded(new Date(new Date(at).getTime() - ttlMs), now() - ttlMs, new Date(now() - ttlMs))
  }

  return {
    has: (publicId: string) => ended.has(publicId),
    /** mark sessions ended: by this instance (the trigger's NOTIFY to it is not waited for), or by a NOTIFY */
    mark: (publicIds: string[]) => { for (const id of publicIds) mark(id) },
    /** fn(publicId) once for each session this instance learns has ended, however it learns it */
    onEnded: (fn: (publicId: string) => void) => { listeners.add(fn) },
    load,
    /** read what ended since the last look (load's, or this one's), with an overlap (RECONCILE_OVERLAP_MS) */
    async reconcile (): Promise<void> {
      if (!checked) return await load()
      await readEnded(new Date(checked.revokedAt.getTime() - RECONCILE_OVERLAP_MS), checked.expiresAt - RECONCILE_OVERLAP_MS)
    },
    /** forget revocations no JWT can outlive any more; any instance may run it, any number of times */
    async pruneRevocations (): Promise<void> {
      await database.query('delete from session_revocations where revoked_at < clock_timestamp() - make_interval(secs => $1)', [deps.jwtTtlSeconds])
    },
    /** forget the ended sessions no JWT can outlive any more */
    prune (): void {
      const t = now()
      for (const [id, until] of ended) if (until <= t) ended.delete(id)
    }
  }
}

export type EndedSessions = ReturnType<typeof createEndedSessions>
