// A signed-in person proves once more that they own the account: with its password, a code of its
// authenticator app or a recovery code (./second-factor.ts), an assertion of one of its passkeys, or
// a fresh Google credential of its linked Google account. DELETE /auth/account asks for it, and
// POST /auth/reauthenticate renews a session's proof with it (docs/decisions/accounts.md, Fresh
// authentication). A Google credential proves only when Google issued it within the last
// GOOGLE_PROOF_MAX_AGE_S and it carries a nonce this service issued to this user (accepted once): an
// ID token lives an hour, and one captured or minted for something else must not prove anything. A
// password is checked by the sign-in's own check, so its per-address backoff and failure audit count
// every guess here as at the sign-in form.
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import { ServiceUnavailable } from '../../errors.ts'
import type { RequestMeta } from './audit.ts'
import type { SigninOutcome } from './index.ts'
import type { GoogleVerification } from './google.ts'
import type { GoogleNonces } from './google-nonces.ts'
import type { PasswordService } from './passwords.ts'
import type { PasskeyAssertion } from '../../../schemas/passkeys.ts'
import type { AssertionOutcome } from '../passkeys/index.ts'

/** a password, a second factor's code, a passkey assertion, or a Google credential (clientId names the Google client it was issued to) */
export type OwnerProof = { password?: string, code?: string, passkey?: PasskeyAssertion, clientId?: string, credential?: string }

export type ProofOutcome =
  | { status: 'proved' }
  | { status: 'unknown' }
  | { status: 'missing-proof' }
  | { status: 'refused', message: string }
  /** limiter: the limit that refused it when not the sign-in's backoff (the second factor's guess budget) */
  | { status: 'locked', retryAfter: number, limiter?: 'second-factor' }

export const PROOF_MESSAGES = {
  missing: 'send the password, or clientId and credential for an account without one',
  wrongPassword: 'the password is wrong',
  noPassword: 'this account has no password: send a Google credential (clientId, credential) instead',
  wrongGoogle: 'the Google credential is not one of the Google account linked to this account',
  staleGoogle: 'the Google credential is too old: continue with Google again',
  nonceGoogle: 'the Google credential does not carry a nonce this service issued (POST /auth/google/nonce), or its nonce was used'
} as const

/** the oldest a Google credential may be to prove the owner, by its `iat` */
export const GOOGLE_PROOF_MAX_AGE_S = 300

export interface OwnerProofDeps {
  database: Database
  passwords: PasswordService
  /** the sign-in's check of an address and password (src/services/accounts/index.ts): its backoff applies */
  checkPassword: (email: string, password: string, meta: RequestMeta) => Promise<SigninOutcome>
  verifyGoogle: (clientId: string, credential: string) => Promise<GoogleVerification>
  googleNonces: Pick<GoogleNonces, 'consume'>
  now?: () => number
  /** the second factor's check of a TOTP or recovery code (./second-factor.ts): the same backoff applies */
  checkCode: (userId: string, code: string, meta: RequestMeta) => Promise<ProofOutcome>
  /** the check of a passkey assertion, which must be of one of this user's passkeys (src/services/passkeys/index.ts) */
  checkPasskey: (assertion: PasskeyAssertion, userId: string) => Promise<AssertionOutcome>
}

export interface AccountOfProof { id: string, email: string, passwordHash: string | null, googleSub: string | null }

export function createOwnerProof (deps: OwnerProofDeps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  const refused = (message: string): ProofOutcome => ({ status: 'refused', message })

  /** whether `proof` proves the owner of `user` */
  async function check (user: AccountOfProof, proof: OwnerProof, meta: RequestMeta): Promise<ProofOutcome> {
    if (proof.password !== undefined) {
      if (user.passwordHash === null) {
        // as long as a real check: an answer's timing tells nothing about the account
        await deps.passwords.verifyDummy(proof.password)
        return refused(PROOF_MESSAGES.noPassword)
      }
      const checked = await deps.checkPassword(user.email, proof.password, meta)
      if (checked.ok) return { status: 'proved' }
      return 'retryAfter' in checked ? { status: 'locked', retryAfter: checked.retryAfter } : refused(PROOF_MESSAGES.wrongPassword)
    }
    if (proof.code !== undefined) return await deps.checkCode(user.id, proof.code, meta)
    if (proof.passkey !== undefined) {
      // a signature of the user's own authenticator: nothing to guess, so no backoff to count it toward
      const checked = await deps.checkPasskey(proof.passkey, user.id)
      return checked.ok ? { status: 'proved' } : refused(checked.message)
    }
    const { clientId } = proof
    if (clientId === undefined || proof.credential === undefined) return { status: 'missing-proof' }
    if (user.googleSub === null) return refused(PROOF_MESSAGES.wrongGoogle)
    const verified = await deps.verifyGoogle(clientId, proof.credential)
    if (!verified.ok) {
      if (verified.reason === 'certificates') throw new ServiceUnavailable('Google sign-in is unavailable, try again later')
      return refused(PROOF_MESSAGES.wrongGoogle)
    }
    if (verified.identity.sub !== user.googleSub) return refused(PROOF_MESSAGES.wrongGoogle)
    if (verified.issuedAt < Math.floor(now() / 1000) - GOOGLE_PROOF_MAX_AGE_S) return refused(PROOF_MESSAGES.staleGoogle)
    // consumed last: a credential refused for another reason leaves its nonce for a good one
    if (verified.nonce === null || !await deps.googleNonces.consume(user.id, verified.nonce)) return refused(PROOF_MESSAGES.nonceGoogle)
    return { status: 'proved' }
  }

  return {
    check,
    /** the account of `userId` and whether `proof` proves its owner ('unknown' when it is gone) */
    async ofUser (userId: string, proof: OwnerProof, meta: RequestMeta): Promise<{ user: AccountOfProof | null, outcome: ProofOutcome }> {
      const [user] = await db.select({ id: users.id, email: users.email, passwordHash: users.passwordHash, googleSub: users.googleSub })
        .from(users).where(eq(users.id, userId))
      if (!user) return { user: null, outcome: { status: 'unknown' } }
      return { user, outcome: await check(user, proof, meta) }
    }
  }
}

export type OwnerProofService = ReturnType<typeof createOwnerProof>
