// The challenges the service issues for WebAuthn ceremonies (the auth_challenges table): each is
// accepted once, by the one statement that deletes it, so a replayed response finds nothing, on this
// instance or any other. A challenge is bound to its purpose, and a registration's to its user.
// Expired rows are swept as new ones are issued, so a flood of options requests leaves no heap behind.
import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { authChallenges } from '../../db/schema/index.ts'

export type ChallengePurpose = 'passkey-register' | 'passkey-assert'

export function createChallenges (database: Database, now: () => number, ttlMs: number) {
  const db = database.db
  return {
    /** store a challenge the service just handed out */
    async issue (challenge: string, purpose: ChallengePurpose, userId: string | null): Promise<void> {
      const at = now()
      await db.delete(authChallenges).where(lt(authChallenges.expiresAt, new Date(at)))
      await db.insert(authChallenges).values({ challenge, purpose, userId, expiresAt: new Date(at + ttlMs) })
    },

    /** take a live challenge of this purpose (and user, or none) out of the table: true once, false ever after */
    async take (challenge: string, purpose: ChallengePurpose, userId: string | null): Promise<boolean> {
      if (challenge.length === 0 || challenge.length > 128) return false
      const rows = await db.delete(authChallenges)
        .where(and(eq(authChallenges.challenge, challenge), eq(authChallenges.purpose, purpose),
          userId === null ? isNull(authChallenges.userId) : eq(authChallenges.userId, userId),
          gt(authChallenges.expiresAt, new Date(now()))))
        .returning({ challenge: authChallenges.challenge })
      return rows.length > 0
    }
  }
}
