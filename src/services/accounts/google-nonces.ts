// The nonces a Google proof of the account's owner must carry (docs/decisions/accounts.md, Fresh
// authentication): issued to one signed-in user, kept in auth_challenges, accepted once and only
// within NONCE_TTL_MS. The page hands the nonce to Google Identity Services, which puts it into the
// ID token it signs: a token captured elsewhere, or one minted for another purpose, carries none of ours.
import { randomBytes } from 'node:crypto'
import { and, eq, gt, lt } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { authChallenges } from '../../db/schema/index.ts'

export const GOOGLE_NONCE_PURPOSE = 'google-nonce'
/** how long an issued nonce waits for its proof: the Google prompt, the choice of account, a slow network */
export const NONCE_TTL_MS = 10 * 60_000

export function createGoogleNonces (deps: { database: Database, now?: () => number }) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  return {
    /** a new nonce for `userId`; expired ones of any user are dropped meanwhile */
    async issue (userId: string): Promise<{ nonce: string, expiresAt: Date }> {
      const at = now()
      await db.delete(authChallenges).where(and(eq(authChallenges.purpose, GOOGLE_NONCE_PURPOSE), lt(authChallenges.expiresAt, new Date(at))))
      const nonce = randomBytes(24).toString('base64url')
      const expiresAt = new Date(at + NONCE_TTL_MS)
      await db.insert(authChallenges).values({ challenge: nonce, purpose: GOOGLE_NONCE_PURPOSE, userId, expiresAt })
      return { nonce, expiresAt }
    },

    /** true once for a live nonce issued to `userId`: it is deleted as it is accepted */
    async consume (userId: string, nonce: string): Promise<boolean> {
      const rows = await db.delete(authChallenges)
        .where(and(eq(authChallenges.challenge, nonce), eq(authChallenges.purpose, GOOGLE_NONCE_PURPOSE),
          eq(authChallenges.userId, userId), gt(authChallenges.expiresAt, new Date(now()))))
        .returning({ challenge: authChallenges.challenge })
      return rows.length > 0
    }
  }
}

export type GoogleNonces = ReturnType<typeof createGoogleNonces>
