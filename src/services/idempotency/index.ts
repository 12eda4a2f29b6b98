// Idempotency keys (docs/decisions/programs.md, Idempotency keys): the first answer to a user's
// `Idempotency-Key`, kept for 24 h and answered again to a retry of the same request.
//
// A request claims its (user, key) with one INSERT ... ON CONFLICT, atomic across instances: the
// claim holds the request's hash and no answer until the answer is stored. Another request with the
// key then finds the row: the same request answered already is replayed, the same request still
// running is refused (409), another request is refused (422). A claim left without an answer for
// LEASE_MS (its request's process died) is abandoned: the same request takes it over. A row older
// than TTL_MS counts as gone: any request takes it over, and the pruner deletes it.
import { createHash } from 'node:crypto'
import type { Database } from '../../db/client.ts'

/** how long a key's first answer is kept and replayed */
export const TTL_MS = 24 * 3600_000
/** how long a claim without an answer holds its key: longer than any idempotent request runs */
export const LEASE_MS = 60_000

/** what a replay answers: the stored status, the headers it repeats, the body as sent */
export interface StoredAnswer { statusCode: number, headers: Record<string, string>, body: string }

export type ClaimOutcome =
  | { kind: 'claimed', claimedAt: Date }
  | { kind: 'replay', answer: StoredAnswer }
  | { kind: 'running' }
  | { kind: 'mismatch' }

/** a claimed key: the request that holds it */
export interface Claim { userId: string, key: string, hash: string, claimedAt: Date }

/** JSON with every object's keys in order: the same body in any key order is the same request */
export function canonicalJson (value: unknown): string {
  if (value === undefined) return ''
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((v) => v === undefined ? 'null' : canonicalJson(v)).join(',')}]`
  const entries = Object.keys(value).sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
  return `{${entries.join(',')}}`
}

/** what makes two requests the same: method, path as requested (with its query) and body */
export function requestHash (method: string, url: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([method.toUpperCase(), url, canonicalJson(body)])).digest('hex')
}

interface Row { request_hash: string, status_code: number | null, headers: Record<string, string> | null, body: string | null }

// The row is taken over (made this request's claim) when it has expired, or when it is this same
// request's abandoned claim; otherwise the conflict leaves it alone and returns nothing.
const CLAIM = `insert into idempotency_keys (user_id, key, request_hash, created_at) values ($1, $2, $3, $4::timestamptz)
  on conflict (user_id, key) do update
    set request_hash = excluded.request_hash, created_at = excluded.created_at,
        status_code = null, headers = null, body = null, completed_at = null
    where idempotency_keys.created_at <= $5::timestamptz
       or (idempotency_keys.status_code is null and idempotency_keys.created_at <= $6::timestamptz
           and idempotency_keys.request_hash = excluded.request_hash)
  returning 1`

const READ = 'select request_hash, status_code, headers, body from idempotency_keys where user_id = $1 and key = $2'

// Only the claim that holds the row writes or releases it: a request that outlived its lease and
// lost the key to a retry leaves the retry's row alone.
const COMPLETE = `update idempotency_keys set status_code = $5, headers = $6::jsonb, body = $7, completed_at = $8::timestamptz
  where user_id = $1 and key = $2 and request_hash = $3 and created_at = $4::timestamptz and status_code is null`
const RELEASE = `delete from idempotency_keys
  where user_id = $1 and key = $2 and request_hash = $3 and created_at = $4::timestamptz and status_code is null`

export function createIdempotencyService (deps: { database: Database, now?: () => number }) {
  const { database } = deps
  const now = deps.now ?? Date.now
  const iso = (ms: number) => new Date(ms).toISOString()

  return {
    /** claim `key` of `userId` for the request of `hash`, or say why not (the answer to replay, running, another request) */
    async claim (userId: string, key: string, hash: string): Promise<ClaimOutcome> {
      // Twice at most: a row that goes away between the claim and the read (released, pruned) is claimed again.
      for (let attempt = 0; attempt < 2; attempt++) {
        const t = now()
        const claimedAt = new Date(t)
        const claimed = await database.query(CLAIM, [userId, key, hash, claimedAt.toISOString(), iso(t - TTL_MS), iso(t - LEASE_MS)])
        if (claimed.length > 0) return { kind: 'claimed', claimedAt }
        const [row] = await database.query<Row>(READ, [userId, key])
        if (!row) continue
        if (row.request_hash !== hash) return { kind: 'mismatch' }
        if (row.status_code === null) return { kind: 'running' }
        return { kind: 'replay', answer: { statusCode: row.status_code, headers: row.headers ?? {}, body: row.body ?? '' } }
      }
      // claimed and released again twice in a moment: another request with the key is on it
      return { kind: 'running' }
    },

    /** keep the answer of a claim for its replays */
    async complete (claim: Claim, answer: StoredAnswer): Promise<void> {
      await database.query(COMPLETE, [claim.userId, claim.key, claim.hash, claim.claimedAt.toISOString(),
        answer.statusCode, JSON.stringify(answer.headers), answer.body, iso(now())])
    },

    /** give the key up: the request did nothing, and its retry does the work */
    async release (claim: Claim): Promise<void> {
      await database.query(RELEASE, [claim.userId, claim.key, claim.hash, claim.claimedAt.toISOString()])
    },

    /** delete the rows older than TTL_MS; how many */
    async prune (): Promise<number> {
      const rows = await database.query('delete from idempotency_keys where created_at <= $1::timestamptz returning 1', [iso(now() - TTL_MS)])
      return rows.length
    }
  }
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>
