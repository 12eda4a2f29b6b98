// Who holds the SSE hub's streams (src/services/streams/hub.ts): the streams of each session, to end them
// when it ends, and how many each user holds, for the per-user limit (docs/decisions/sessions.md,
// Sessions and streams).

/** who holds a stream: its user, its session's public id, and when its Bearer token expires (ms; none for a cookie) */
export interface StreamOwner { userId: string, sid: string, expMs?: number }

export function streamOwners<S extends { owner: StreamOwner | undefined }> () {
  const bySession = new Map<string, Set<S>>()
  const perUser = new Map<string, number>()
  return {
    add (sub: S): void {
      const owner = sub.owner
      if (!owner) return
      let own = bySession.get(owner.sid)
      if (!own) bySession.set(owner.sid, own = new Set())
      own.add(sub)
      perUser.set(owner.userId, (perUser.get(owner.userId) ?? 0) + 1)
    },
    remove (sub: S): void {
      const owner = sub.owner
      if (!owner) return
      const own = bySession.get(owner.sid)
      if (!own?.delete(sub)) return
      if (own.size === 0) bySession.delete(owner.sid)
      const n = (perUser.get(owner.userId) ?? 1) - 1
      if (n > 0) perUser.set(owner.userId, n)
      else perUser.delete(owner.userId)
    },
    /** how many streams this user holds */
    countOf: (userId: string): number => perUser.get(userId) ?? 0,
    /** the streams of a session, as a copy (ending them changes the set) */
    ofSession: (sid: string): S[] => [...(bySession.get(sid) ?? [])],
    /** the streams whose Bearer token expires by nowMs */
    expiredBy (nowMs: number): S[] {
      const out: S[] = []
      for (const own of bySession.values()) {
        for (const sub of own) {
          const exp = sub.owner!.expMs
          if (exp !== undefined && exp <= nowMs) out.push(sub)
        }
      }
      return out
    }
  }
}
