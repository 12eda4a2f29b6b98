// API keys for programs (docs/decisions/programs.md, API keys): a person issues a key with some
// scopes, lists their keys (never the key itself: only its hash is stored) and revokes one. A user
// holds at most MAX_LIVE_KEYS live keys (neither revoked nor expired). A revocation reaches every
// instance as an ended session does (drizzle/0009); this instance marks it at once, without waiting
// for its NOTIFY. Requests are checked against the in-memory view of ./view.ts.
import { and, count, desc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { ApiKeyScope } from '../../../schemas/api-keys.ts'
import type { Database } from '../../db/client.ts'
import { apiKeys, users } from '../../db/schema/index.ts'
import { BadRequest, Conflict, notFound } from '../../errors.ts'
import { newKey } from './format.ts'
import { createKeyView } from './view.ts'

export { KEY_MARK } from './format.ts'
export type { KeyHolder } from './view.ts'

export const MAX_LIVE_KEYS = 20
const DAY_MS = 86_400_000
// a fresh prefix collides with a stored one with a chance of (keys stored) / 2^48
const PREFIX_ATTEMPTS = 3

/** a key as its owner sees it in a listing */
export interface ApiKeyListing {
  id: string
  name: string
  scopes: ApiKeyScope[]
  prefix: string
  createdAt: Date
  lastUsedAt: Date | null
  expiresAt: Date | null
}

export interface IssuedKey extends Omit<ApiKeyListing, 'lastUsedAt'> {
  /** the key itself: shown this once */
  key: string
}

export interface NewKeyRequest { name: string, scopes: ApiKeyScope[], expiresInDays?: number }

export interface ApiKeyServiceDeps {
  database: Database
  /** the session service's ended set: revoked keys are in it */
  isEnded: (id: string) => boolean
  /** mark ids ended in this instance at once (the trigger's NOTIFY tells the others) */
  announceEnded: (ids: string[]) => void
  now?: () => number
  onWriteError: (err: unknown) => void
}

export function createApiKeyService (deps: ApiKeyServiceDeps) {
  const { database } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  const view = createKeyView({ database, isEnded: deps.isEnded, now, onWriteError: deps.onWriteError })
  const liveOf = (userId: string) => and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt),
    or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date(now()))))

  return {
    /** a new key for userId; Conflict when the user holds MAX_LIVE_KEYS live keys already */
    async create (userId: string, request: NewKeyRequest): Promise<IssuedKey> {
      const expiresAt = request.expiresInDays === undefined ? null : new Date(now() + request.expiresInDays * DAY_MS)
      // the user's row lock: concurrent creations are counted one after the other
      return await db.transaction(async (tx) => {
        const [owner] = await tx.select({ role: users.role }).from(users).where(eq(users.id, userId)).for('update')
        // a key that reads /admin is a staff member's (docs/operations.md, Support); it stops working
        // when its owner stops being staff (src/plugins/staff.ts)
        if (request.scopes.includes('admin:read') && owner?.role !== 'support' && owner?.role !== 'admin') {
          throw new BadRequest('body scopes: admin:read may be given only to a staff member\'s key')
        }
        const [{ n }] = await tx.select({ n: count() }).from(apiKeys).where(liveOf(userId))
        if (n >= MAX_LIVE_KEYS) throw new Conflict(`at most ${MAX_LIVE_KEYS} live API keys per user`)
        for (let attempt = 1; ; attempt++) {
          const fresh = newKey()
          const [row] = await tx.insert(apiKeys)
            .values({ userId, name: request.name, scopes: request.scopes, prefix: fresh.prefix, hash: fresh.hash, expiresAt })
            .onConflictDoNothing({ target: apiKeys.prefix })
            .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt })
          if (row) {
            return { id: row.id, name: request.name, scopes: request.scopes, prefix: fresh.prefix, key: fresh.key, createdAt: row.createdAt, expiresAt }
          }
          if (attempt === PREFIX_ATTEMPTS) throw new Error('no free API key prefix')
        }
      })
    },

    /** the user's keys, revoked ones aside (expired ones stay listed with their expiry), newest first */
    async list (userId: string): Promise<ApiKeyListing[]> {
      const rows = await db.select({
        id: apiKeys.id, name: apiKeys.name, scopes: apiKeys.scopes, prefix: apiKeys.prefix,
        createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt, expiresAt: apiKeys.expiresAt
      }).from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      // written from the body's schema alone
      return rows.map((r) => ({ ...r, scopes: r.scopes as ApiKeyScope[] }))
    },

    /** revoke one of the user's keys; NotFound for an unknown id, another user's key or one revoked already */
    async revoke (userId: string, id: string): Promise<void> {
      const revoked = await db.update(apiKeys).set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id })
      if (revoked.length === 0) throw notFound('API key not found')
      deps.announceEnded([id])
    },

    /** the view requests are checked against (./view.ts) */
    known: view.known,
    load: view.load,
    forget: view.forget,
    settled: view.settled
  }
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>
