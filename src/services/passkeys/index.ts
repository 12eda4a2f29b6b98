// Passkeys (WebAuthn credentials) through @simplewebauthn/server (docs/decisions/accounts.md,
// Passkeys): registration of a discoverable credential with user verification, the list and removal
// of a user's passkeys, and the check of an assertion, for a usernameless sign-in, a second factor
// or a fresh proof. Every ceremony's challenge is issued here and accepted once (./challenges.ts).
// Whatever a client sends, a malformed or forged response ends as a refusal with a reason, never
// as an exception: the library's errors are caught and turned into one.
import { randomBytes } from 'node:crypto'
import { and, asc, count, eq, lt } from 'drizzle-orm'
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON
} from '@simplewebauthn/server'
import type { PasskeyAssertion, PasskeyRegistration } from '../../../schemas/passkeys.ts'
import type { Database, Db } from '../../db/client.ts'
import { passkeys, users } from '../../db/schema/index.ts'
import { createChallenges } from './challenges.ts'
import type { RelyingParty } from './relying-party.ts'

export { relyingPartyOf, type RelyingParty } from './relying-party.ts'

/** how long a ceremony's challenge is accepted, and what the options ask the browser to wait */
const CHALLENGE_TTL_MS = 5 * 60_000
const CEREMONY_TIMEOUT_MS = 3 * 60_000
/** a user holds at most this many passkeys: each is a row the sign-in ceremony may have to find */
export const MAX_PASSKEYS = 20

/** a passkey as its owner sees it */
export interface PasskeyListing {
  id: string
  name: string
  createdAt: Date
  lastUsedAt: Date | null
  deviceType: string | null
  backedUp: boolean
}

export type RegistrationOutcome = { ok: true, passkey: PasskeyListing, first: boolean } | { ok: false, message: string }
/** credentialVersion: the account's users.credential_version, read with the passkey (a sign-in starts its session only while it holds) */
export type AssertionOutcome = { ok: true, userId: string, passkeyId: string, credentialVersion: number } | { ok: false, message: string }

export const PASSKEY_MESSAGES = {
  registration: 'the passkey could not be registered: start again',
  registered: 'this passkey is registered already',
  tooMany: `at most ${MAX_PASSKEYS} passkeys per account`,
  refused: 'the passkey was not accepted',
  notYours: 'this passkey is not one of this account',
  notThisOne: 'the assertion is of another passkey: removing this one needs an assertion of it'
} as const

export interface PasskeyServiceDeps {
  database: Database
  relyingParty: RelyingParty
  now?: () => number
  /** why a response was refused, for the log only (it may quote what the client sent) */
  onRefused?: (reason: string) => void
  /**
   * this process's account views: the account's passkeys changed (GET /auth/info counts them; the
   * table's trigger tells the other processes)
   */
  changed?: (userId: string) => void
}

/** the WebAuthn user handle of an account: its id's bytes, nothing personal */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId)

export function createPasskeyService (deps: PasskeyServiceDeps) {
  const { database, relyingParty: rp } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  const challenges = createChallenges(database, now, CHALLENGE_TTL_MS)
  const refused = (message: string, reason: unknown): { ok: false, message: string } => {
    deps.onRefused?.(reason instanceof Error ? reason.message : String(reason))
    return { ok: false, message }
  }
  const listing = {
    id: passkeys.id, name: passkeys.name, createdAt: passkeys.createdAt, lastUsedAt: passkeys.lastUsedAt,
    deviceType: passkeys.deviceType, backedUp: passkeys.backedUp
  }

  async function countOf (userId: string): Promise<number> {
    const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId))
    return Number(row?.n ?? 0)
  }

  return {
    /** how many passkeys the user holds */
    count: countOf,

    /** the options of a new passkey's registration for this user; its challenge is kept for them */
    async registrationOptions (userId: string): Promise<PublicKeyCredentialCreationOptionsJSON | null> {
      const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId))
      if (!user) return null
      const held = await db.select({ credentialId: passkeys.credentialId, transports: passkeys.transports })
        .from(passkeys).where(eq(passkeys.userId, userId))
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: user.email,
        userDisplayName: user.email,
        userID: userHandleOf(userId),
        challenge: randomBytes(32),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: 'none',
        // the authenticator refuses to make a second passkey of this account beside one it holds
        excludeCredentials: held.map((p) => ({ id: p.credentialId, transports: p.transports ?? undefined })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' }
      })
      await challenges.issue(options.challenge, 'passkey-register', userId)
      return options
    },

    /** check a registration response against a challenge issued to this user, and keep the passkey */
    async register (userId: string, answer: PasskeyRegistration, name: string | undefined): Promise<RegistrationOutcome> {
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>
      try {
        verified = await verifyRegistrationResponse({
          response: { ...answer, clientExtensionResults: answer.clientExtensionResults ?? {} } as RegistrationResponseJSON,
          expectedChallenge: (challenge) => challenges.take(challenge, 'passkey-register', userId),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true
        })
      } catch (err) {
        return refused(PASSKEY_MESSAGES.registration, err)
      }
      const info = verified.registrationInfo
      if (!verified.verified || !info) return refused(PASSKEY_MESSAGES.registration, 'not verified')
      const held = await countOf(userId)
      if (held >= MAX_PASSKEYS) return { ok: false, message: PASSKEY_MESSAGES.tooMany }
      const { credential } = info
      const [row] = await db.insert(passkeys).values({
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? null,
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        name: name ?? `Passkey ${held + 1}`
      }).onConflictDoNothing({ target: passkeys.credentialId }).returning(listing)
      if (!row) return { ok: false, message: PASSKEY_MESSAGES.registered }
      deps.changed?.(userId)
      return { ok: true, passkey: row, first: held === 0 }
    },

    /** the user's passkeys, oldest first */
    async list (userId: string): Promise<PasskeyListing[]> {
      return await db.select(listing).from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id))
    },

    /**
     * Remove one of the user's passkeys inside `tx`, the transaction of the credential change it is
     * (docs/decisions/accounts.md, Passkeys); null when it is no passkey of theirs. `left`: how
     * many remain. The caller tells the account views once the transaction has committed.
     */
    async removeWith (tx: Db, userId: string, passkeyId: string): Promise<{ left: number } | null> {
      const rows = await tx.delete(passkeys).where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, userId))).returning({ id: passkeys.id })
      if (rows.length === 0) return null
      const [row] = await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId))
      return { left: Number(row?.n ?? 0) }
    },

    /**
     * The options of an assertion: no credentials listed, so the authenticator offers the
     * discoverable passkeys it holds for this RP (a sign-in without a name, or the second factor and
     * fresh proof of a signed-in person, whose passkey must then be theirs).
     */
    async assertionOptions (): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const options = await generateAuthenticationOptions({
        rpID: rp.id, challenge: randomBytes(32), timeout: CEREMONY_TIMEOUT_MS, userVerification: 'required'
      })
      await challenges.issue(options.challenge, 'passkey-assert', null)
      return options
    },

    /**
     * Check an assertion: a challenge issued by assertionOptions, a passkey the service knows (of
     * `userId` when given), its signature, the user's verification, and a signature counter that
     * moved on (a counter that went back is a cloned authenticator's). The counter is stored with a
     * compare-and-set, so two responses raced with one counter value cannot both pass.
     */
    async verifyAssertion (answer: PasskeyAssertion, userId?: string): Promise<AssertionOutcome> {
      const response = { ...answer, clientExtensionResults: answer.clientExtensionResults ?? {} } as AuthenticationResponseJSON
      const credentialId = typeof response?.id === 'string' ? response.id : ''
      if (credentialId.length === 0 || credentialId.length > 1024) return refused(PASSKEY_MESSAGES.refused, 'no credential id')
      const [stored] = await db.select({
        id: passkeys.id, userId: passkeys.userId, publicKey: passkeys.publicKey, counter: passkeys.counter, transports: passkeys.transports,
        credentialVersion: users.credentialVersion
      }).from(passkeys).innerJoin(users, eq(users.id, passkeys.userId)).where(eq(passkeys.credentialId, credentialId))
      if (!stored) return refused(PASSKEY_MESSAGES.refused, 'unknown credential')
      if (userId !== undefined && stored.userId !== userId) return refused(PASSKEY_MESSAGES.notYours, 'another user\'s credential')
      // a discoverable credential answers with its user handle: it must be the one it was made with
      const handle = response.response?.userHandle
      if (handle !== undefined && handle !== null && handle !== Buffer.from(userHandleOf(stored.userId)).toString('base64url')) {
        return refused(PASSKEY_MESSAGES.refused, 'user handle of another account')
      }
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
      try {
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: (challenge) => challenges.take(challenge, 'passkey-assert', null),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: {
            id: credentialId,
            publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')),
            counter: stored.counter,
            transports: stored.transports ?? undefined
          },
          requireUserVerification: true
        })
      } catch (err) {
        return refused(PASSKEY_MESSAGES.refused, err)
      }
      if (!verified.verified) return refused(PASSKEY_MESSAGES.refused, 'not verified')
      const { newCounter } = verified.authenticationInfo
      const moved = await db.update(passkeys)
        .set({ counter: newCounter, lastUsedAt: new Date(now()) })
        .where(newCounter === 0 ? eq(passkeys.id, stored.id) : and(eq(passkeys.id, stored.id), lt(passkeys.counter, newCounter)))
        .returning({ id: passkeys.id })
      if (moved.length === 0) return refused(PASSKEY_MESSAGES.refused, 'the counter went back meanwhile')
      return { ok: true, userId: stored.userId, passkeyId: stored.id, credentialVersion: stored.credentialVersion }
    }
  }
}

export type PasskeyService = ReturnType<typeof createPasskeyService>
