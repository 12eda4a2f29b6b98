// The in-memory view a request's API key is checked against (docs/decisions/programs.md, API keys).
// A key seen before costs a lookup: the view is keyed by the whole key, so a hit is a key whose
// hash matched, and no database round trip or SHA-256 is paid again. A miss reads the row by its
// prefix and compares the secret's SHA-256 with the stored one in constant time; only a key that
// passes is kept, so a guess costs a read every time (and counts against the failed-authentication
// budget).
//
// Revocation: a revoked or deleted key reaches the ended set of src/services/sessions/ended.ts as an
// ended session does (drizzle/0009's trigger, NOTIFY, reconcile), which drops it from this view
// (forget) and is asked on every request (isEnded), so a key is refused on every instance within
// a second. Entries also leave after VIEW_TTL_MS, no longer than the ended set remembers a key
// (JWT_TTL, at least 60 s): a load that read the row just before its revocation and was kept after
// the forget is refused by the ended set until it leaves.
import { eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { apiKeys } from '../../db/schema/index.ts'
import { createViewCache } from '../caches/view-cache.ts'
import { parseKey, secretMatches } from './format.ts'

/** what a request's key stands for: its id, its owner, what it may do and until when (ms; none: no expiry) */
export interface KeyHolder { id: string, userId: string, scopes: readonly string[], expMs: number | undefined }

const VIEW_TTL_MS = 60_000
const MAX_KEYS = 10_000
/** last_used_at is written at most once per this much per key and instance */
export const LAST_USED_GRANULARITY_MS = 60_000

export interface KeyViewDeps {
  database: Database
  /** the ended set of the session service: revoked and deleted keys are in it */
  isEnded: (id: string) => boolean
  now: () => number
  /** a failed last_used_at write (never awaited by a request) */
  onWriteError: (err: unknown) => void
}

export function createKeyView (deps: KeyViewDeps) {
  const { now } = deps
  const db = deps.database.db
  const held = createViewCache<KeyHolder>({ maxEntries: MAX_KEYS, ttlMs: VIEW_TTL_MS, now })
  // key id -> the key it is held under, to forget it by id
  const keyOf = createViewCache<string>({ maxEntries: MAX_KEYS, ttlMs: VIEW_TTL_MS, now })
  // key ids whose last_used_at was written within LAST_USED_GRANULARITY_MS
  const written = createViewCache<true>({ maxEntries: MAX_KEYS, ttlMs: LAST_USED_GRANULARITY_MS, now })
  const pending = new Set<Promise<void>>()

  const byPrefix = db.select({
    id: apiKeys.id, userId: apiKeys.userId, scopes: apiKeys.scopes, hash: apiKeys.hash, expiresAt: apiKeys.expiresAt, revokedAt: apiKeys.revokedAt
  }).from(apiKeys).where(eq(apiKeys.prefix, sql.placeholder('prefix'))).prepare('api_key_by_prefix')
  const touch = db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, sql.placeholder('id'))).prepare('api_key_used')

  const live = (h: KeyHolder) => (h.expMs === undefined || h.expMs > now()) && !deps.isEnded(h.id)

  /** the key's row, read and checked: its holder when the key is good, else null */
  async function load (key: string): Promise<KeyHolder | null> {
    const parsed = parseKey(key)
    if (!parsed) return null
    const [row] = await byPrefix.execute({ prefix: parsed.prefix })
    if (!row || row.revokedAt !== null || !secretMatches(parsed.secret, row.hash)) return null
    const holder: KeyHolder = { id: row.id, userId: row.userId, scopes: row.scopes, expMs: row.expiresAt?.getTime() }
    if (!live(holder)) return null
    held.set(key, holder)
    keyOf.set(holder.id, key)
    return holder
  }

  /** last_used_at, at most once a LAST_USED_GRANULARITY_MS per key; the request does not wait for it */
  function used (id: string) {
    if (written.peek(id) !== undefined) return
    written.set(id, true)
    const write = touch.execute({ id }).then(() => {}, deps.onWriteError).finally(() => { pending.delete(write) })
    pending.add(write)
  }

  return {
    /**
     * a key in the view: its holder if it is live, null if it expired or was revoked, undefined
     * when the view does not hold it (then `load` it)
     */
    known (key: string): KeyHolder | null | undefined {
      const h = held.peek(key)
      if (h === undefined) return undefined
      if (!live(h)) return null
      used(h.id)
      return h
    },
    async load (key: string): Promise<KeyHolder | null> {
      const h = await load(key)
      if (h) used(h.id)
      return h
    },
    /** drop a key (revoked, deleted) from the view */
    forget (id: string): void {
      const key = keyOf.peek(id)
      if (key === undefined) return
      held.invalidate(key)
      keyOf.invalidate(id)
    },
    /** the last_used_at writes still running (waited for on close) */
    settled: async () => { await Promise.all([...pending]) }
  }
}

export type KeyView = ReturnType<typeof createKeyView>
