// Credential changes (docs/decisions/accounts.md, Credential versions): a password set, changed or
// reset, a second factor removed, Google unlinked. Each moves users.credential_version on, writes
// the credential and ends every session proved against an older version, in one transaction; a
// sign-in writes its session only while the version it read with the credential is still the user's
// (./rows.ts, start). So a sign-in that proved the old credential and finishes after the change
// gets no session, whichever of the two reaches the user's row first:
// - the change first: it holds the row's lock until it commits; the sign-in's insert waits on its
//   FOR SHARE, then finds the version moved and writes nothing;
// - the sign-in first: its insert holds FOR SHARE until it commits; the change's version bump waits,
//   and the statement that ends the stale sessions, begun after it (READ COMMITTED: a snapshot per
//   statement), sees the new row and ends it.
// Endings set ended_at, so the sessions table's trigger records each one and NOTIFYs every instance
// in the same transaction (drizzle/0005): a stale session's JWTs are refused everywhere.
import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { sessions, users } from '../../db/schema/index.ts'
import { Unauthorized } from '../../errors.ts'

/** what a credential change did: what its write returned, the user's new credential version, the sessions it ended */
export interface CredentialChanged<T> { value: T, version: number, ended: string[] }

/**
 * Writes the new credential in the change's transaction `tx` (`version`: the user's new credential
 * version), returning what the caller wants back; null when there is nothing to change, which rolls
 * the whole change back (no version moves, no session ends).
 */
export type CredentialWrite<T> = (tx: Db, version: number) => Promise<T | null>

export interface CredentialChangeDeps {
  database: Database
  /** the session service's own marking of ended sessions (the trigger's NOTIFY is not waited for) */
  announceEnded: (publicIds: string[]) => void | Promise<void>
  now?: () => number
}

// thrown inside the transaction to roll it back when the write found nothing to change
class NothingChanged extends Error {}

export function createCredentialChanges (deps: CredentialChangeDeps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now

  return {
    /**
     * Change a credential of `userId`: the one function every credential change goes through.
     *
     * In one transaction: users.credential_version + 1 (which locks the user's row until commit),
     * then the session `keep` moved to the new version, then `write(tx, version)`, then every other
     * session of the user ended (each is announced at once here, and to other instances by the
     * trigger's NOTIFY).
     *
     * keep: the public id of the session making the change, which goes on (password change, Google
     * unlinked, a factor removed), or null when none does (a reset by recovery link, Google taking
     * over an unproven account). A `keep` session that is not live, or was proved against an older
     * version (another change ended it meanwhile), throws Unauthorized (401) and changes nothing: a
     * request of an ended session changes no credential.
     *
     * Returns null when the user does not exist or `write` returned null (then nothing changed).
     */
    async change<T> (userId: string, keep: string | null, write: CredentialWrite<T>): Promise<CredentialChanged<T> | null> {
      let changed: CredentialChanged<T>
      try {
        changed = await db.transaction(async (tx) => {
          const [bumped] = await tx.update(users).set({ credentialVersion: sql`${users.credentialVersion} + 1` })
            .where(eq(users.id, userId)).returning({ version: users.credentialVersion })
          if (!bumped) throw new NothingChanged()
          const version = bumped.version
          const at = new Date(now())
          if (keep !== null) {
            const kept = await tx.update(sessions).set({ credentialVersion: version })
              .where(and(eq(sessions.publicId, keep), eq(sessions.userId, userId), isNull(sessions.endedAt), gt(sessions.expiresAt, at),
                eq(sessions.credentialVersion, version - 1)))
              .returning({ publicId: sessions.publicId })
            if (!kept.length) throw new Unauthorized()
          }
          const value = await write(tx, version)
          if (value === null) throw new NothingChanged()
          const ended = await tx.update(sessions).set({ endedAt: at })
            .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt), ne(sessions.credentialVersion, version)))
            .returning({ publicId: sessions.publicId })
          return { value, version, ended: ended.map((r) => r.publicId) }
        })
      } catch (err) {
        if (err instanceof NothingChanged) return null
        throw err
      }
      if (changed.ended.length) await deps.announceEnded(changed.ended)
      return changed
    }
  }
}

export type CredentialChanges = ReturnType<typeof createCredentialChanges>
