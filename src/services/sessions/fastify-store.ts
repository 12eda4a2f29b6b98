// The store @fastify/session keeps its sessions in, on the session rows (./rows.ts): only signed-in
// sessions are stored, a sign-in's first row is written only while the credential it proved is
// unchanged (StaleCredential otherwise), and destroying a session ends it.
import { and, eq, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { StaleCredential } from '../../errors.ts'
import { sessions } from '../../db/schema/index.ts'
import type { SessionData, SessionRows } from './rows.ts'

type Callback<T = void> = (err?: Error | null, value?: T) => void

// A browser-session cookie (sign-in with remember:false) is stored with originalMaxAge null. Say
// maxAge null as well: otherwise @fastify/session falls back to the configured maxAge when it
// restores the session, and the next save (a refresh) turns the cookie into a 30-day one.
function restored (data: SessionData): SessionData {
  const cookie = data.cookie
  return cookie && cookie.originalMaxAge == null ? { ...data, cookie: { ...cookie, maxAge: null } } : data
}

export interface FastifyStoreDeps {
  database: Database
  rows: SessionRows
  /** sessions ended here: marked in the ended set and announced (./ended.ts) */
  markEnded: (publicIds: string[]) => void
  now: () => number
}

export function createFastifyStore (deps: FastifyStoreDeps) {
  const { rows: { kept: rows, live, rollsOn, expiryOf, start, write, liveRow }, now } = deps
  const db = deps.database.db
  return {
    get (sid: string, cb: Callback<SessionData | null>) {
      liveRow(sid)
        .then((row) => cb(null, row ? { ...restored(row.data), userId: row.userId ?? undefined, publicId: row.publicId } : null), cb)
    },
    set (sid: string, session: SessionData & { cookie?: { toJSON?: () => Record<string, unknown> } }, cb: Callback) {
      // Anonymous sessions are not worth a row: only signed-in sessions are stored.
      if (!session.userId || !session.publicId) { cb(); return }
      const data = { cookie: typeof session.cookie?.toJSON === 'function' ? session.cookie.toJSON() : session.cookie }
      const { userId, publicId } = session
      const kept = rows.peek(sid)
      if (kept && live(kept) && kept.userId === userId && kept.publicId === publicId &&
          kept.data.cookie?.originalMaxAge === data.cookie?.originalMaxAge && !rollsOn(kept)) {
        cb()
        return
      }
      const t = now()
      const createdAt = kept?.createdAt ?? t
      if (session.signin && !kept) {
        start(sid, { data, userId, publicId, expiresAt: expiryOf(t, t), createdAt: t, lastUsedAt: t }, session.signin)
          .then((started) => cb(started ? null : new StaleCredential()), cb)
        return
      }
      write(sid, { data, userId, publicId, expiresAt: expiryOf(createdAt, t), createdAt, lastUsedAt: t }, session.signin).then(() => cb(), cb)
    },
    destroy (sid: string, cb: Callback) {
      rows.invalidate(sid)
      db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.id, sid), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
        .then((rows) => { deps.markEnded(rows.map((r) => r.publicId)); cb() }, cb)
    }
  }
}
