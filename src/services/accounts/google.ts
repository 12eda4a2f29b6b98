// Google sign-in (docs/architecture.md, Security rules). Two parts: the ID-token check (google-auth-library's OAuth2Client,
// which verifies signature, issuer and expiry), and the account it signs in to: matched by Google
// `sub`, else linked by e-mail, else created.
import { OAuth2Client } from 'google-auth-library'
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import type { Notices } from '../notices/index.ts'
import { NOTICE } from '../notices/what.ts'
import type { AccountChanges } from './changes.ts'
import type { CredentialChanges } from '../sessions/credential-change.ts'
import type { ListedAdmins } from './index.ts'

export const GOOGLE_FAILED = 'Google sign-in failed'
// The library also accepts its universe domain as an issuer; Google's ID tokens carry only these two.
const ISSUERS = ['accounts.google.com', 'https://accounts.google.com']

export interface GoogleIdentity { sub: string, email: string }

/** why a credential was refused: safe to log, unlike the library's message, which quotes the token */
export type GoogleRefusal =
  | 'client-id' | 'certificates' | 'malformed' | 'unknown-key' | 'signature' | 'expired' | 'not-yet-valid'
  | 'lifetime' | 'issuer' | 'audience' | 'claims' | 'email-unverified' | 'invalid'

/** issuedAt: the token's `iat` (seconds); nonce: its `nonce` claim, null when it has none */
export type GoogleVerification = { ok: true, identity: GoogleIdentity, issuedAt: number, nonce: string | null } | { ok: false, reason: GoogleRefusal }

// Only the start of google-auth-library's messages is read, to name the kind of failure; an unknown
// message is 'invalid'. The rest of the message (the token, its payload) is never kept.
const LIBRARY_REASONS: Array<[string, GoogleRefusal]> = [
  ['Wrong number of segments', 'malformed'],
  ["Can't parse token", 'malformed'],
  ['No pem found', 'unknown-key'],
  ['Invalid token signature', 'signature'],
  ['Token used too late', 'expired'],
  ['Token used too early', 'not-yet-valid'],
  ['Expiration time too far', 'lifetime'],
  ['No issue time', 'claims'],
  ['No expiration time', 'claims'],
  ['Invalid issuer', 'issuer'],
  ['Wrong recipient', 'audience']
]

function refusalOf (err: unknown): GoogleRefusal {
  const message = err instanceof Error ? err.message : ''
  return LIBRARY_REASONS.find(([start]) => message.startsWith(start))?.[1] ?? 'invalid'
}

export function createGoogleService (opts: { clientIds: string[], certsUrl: string }) {
  const allowed = new Set(opts.clientIds)
  // One client for the process: it caches Google's certificates for as long as Google says.
  const client = new OAuth2Client({
    issuers: ISSUERS,
    // gaxios waits forever by default: a hung certificate endpoint must not hang sign-ins with it
    transporterOptions: { timeout: 5000 },
    // In Node the library fetches the PEM map {kid: X.509 certificate}.
    ...(opts.certsUrl ? { endpoints: { oauth2FederatedSignonPemCertsUrl: opts.certsUrl } } : {})
  })
  const refuse = (reason: GoogleRefusal): GoogleVerification => ({ ok: false, reason })

  return {
    /** the verified identity in a credential issued to `clientId`, or why it was refused */
    async verify (clientId: string, credential: string): Promise<GoogleVerification> {
      if (!allowed.has(clientId)) return refuse('client-id')
      if (!credential) return refuse('malformed')
      // Fetched (or taken from the cache) first, so an outage is told apart from a bad credential.
      try {
        await client.getFederatedSignonCertsAsync()
      } catch {
        return refuse('certificates')
      }
      let payload
      try {
        // `audience` always set: the library skips the audience check when it is undefined.
        const ticket = await client.verifyIdToken({ idToken: credential, audience: clientId })
        payload = ticket.getPayload()
      } catch (err) {
        // Deliberately not logged or passed on: the library's message quotes the token.
        return refuse(refusalOf(err))
      }
      if (!payload || typeof payload.sub !== 'string' || !payload.sub || typeof payload.email !== 'string' || !payload.email) {
        return refuse('claims')
      }
      // The library does not look at email_verified; an unverified address must not link to anything.
      const verified = payload.email_verified as unknown
      if (verified !== true && verified !== 'true') return refuse('email-unverified')
      // read by a proof of the account's owner (src/services/accounts/owner-proof.ts); sign-in needs neither
      const nonce = typeof payload.nonce === 'string' && payload.nonce ? payload.nonce : null
      return { ok: true, identity: { sub: payload.sub, email: payload.email.trim().toLowerCase() }, issuedAt: payload.iat, nonce }
    }
  }
}

export type GoogleService = ReturnType<typeof createGoogleService>

/** credentialVersion: the users.credential_version the sign-in read (docs/decisions/accounts.md, Credential versions) */
export type GoogleSignin = { userId: string, isNewUser: boolean, credentialVersion: number }
/** the identity's account is disabled by staff (docs/operations.md, Support → Actions) */
export type Disabled = { disabled: string }

interface AccountDeps {
  database: Database
  audit: AuditService
  /** security notices: a link and an unlink (src/services/notices/index.ts) */
  notices: Pick<Notices, 'send'>
  /** every credential change: the unproven password's removal, unlinking (src/services/sessions/credential-change.ts) */
  changeCredential: CredentialChanges['change']
  /** told when a user's account changes here (src/services/accounts/changes.ts) */
  accountChanges: Pick<AccountChanges, 'changed'>
  signupFreeReports: number
  /** ADMIN_EMAILS: a listed address becomes admin at its sign-ins */
  adminEmails?: ListedAdmins
  now?: () => number
}

function isUniqueViolation (err: unknown): boolean {
  for (let e = err as { code?: string, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === '23505') return true
  }
  return false
}

export function createGoogleAccountService (deps: AccountDeps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now

  // null: the state changed under us (a simultaneous sign-in), match again. 'disabled': the account
  // this identity signs in to was disabled by staff; it is not linked or changed
  async function attempt (identity: GoogleIdentity, acquisitionCode: string | undefined, meta: RequestMeta): Promise<GoogleSignin | Disabled | 'refused' | null> {
    const [known] = await db.select({ id: users.id, credentialVersion: users.credentialVersion, disabledAt: users.disabledAt }).from(users)
      .where(eq(users.googleSub, identity.sub))
    if (known?.disabledAt) return { disabled: known.id }
    if (known) return { userId: known.id, isNewUser: false, credentialVersion: known.credentialVersion }

    const at = new Date(now())
    // Link to the account of that address, if it has no Google account yet. Google has verified the
    // address, so it is confirmed from now on.
    const [before] = await db.select({
      id: users.id, googleSub: users.googleSub, hasPassword: sql<boolean>`${users.passwordHash} is not null`, passwordProven: users.passwordProven,
      credentialVersion: users.credentialVersion, disabledAt: users.disabledAt
    }).from(users).where(eq(users.email, identity.email))
    if (before?.disabledAt) return { disabled: before.id }
    if (before) {
      // linked a moment ago
      if (before.googleSub === identity.sub) return { userId: before.id, isNewUser: false, credentialVersion: before.credentialVersion }
      // The address belongs to an account linked to another Google account: linking is not ours to decide.
      if (before.googleSub !== null) return 'refused'
      // An unproven password may have been set by someone who never had the mailbox, an attacker who
      // registered the address first (pre-hijacking; docs/decisions/accounts.md, Account control):
      // it goes, with every session of the account (a credential change), and the mailbox is told.
      // A proven password stays.
      const dropPassword = before.hasPassword && !before.passwordProven
      const link = async (tx: typeof db) => {
        const [row] = await tx.update(users)
          .set({
            googleSub: identity.sub,
            confirmedAt: sql`coalesce(${users.confirmedAt}, ${at.toISOString()}::timestamptz)`,
            ...(dropPassword ? { passwordHash: null } : {})
          })
          .where(and(eq(users.id, before.id), isNull(users.googleSub), eq(users.passwordProven, before.passwordProven)))
          .returning({ id: users.id, credentialVersion: users.credentialVersion })
        return row ?? null
      }
      const linked = dropPassword ? (await deps.changeCredential(before.id, null, link))?.value ?? null : await link(db)
      if (!linked) return null // changed under us: try again
      deps.accountChanges.changed(linked.id)
      if (dropPassword) await deps.audit.record(AUDIT.passwordRemoved, linked.id, meta)
      await deps.audit.record(AUDIT.idpLink, linked.id, meta)
      // one notice for the link, which says so when the password went with it (docs/security.md, Notices)
      await deps.notices.send(linked.id, {
        what: NOTICE.googleLinked,
        details: dropPassword
          ? 'Your account now signs in with Google only. Its password had never been confirmed from this mailbox, so it was removed ' +
            'and every session signed in with it was signed out. To have a password as well, set one with "Forgot password" on the sign-in page.'
          : undefined,
        ip: meta.ip,
        userAgent: meta.userAgent
      })
      return { userId: linked.id, isNewUser: false, credentialVersion: linked.credentialVersion }
    }

    const [created] = await db.insert(users).values({
      email: identity.email,
      googleSub: identity.sub,
      confirmedAt: at,
      acquisitionCode: acquisitionCode ?? null,
      reportCredits: deps.signupFreeReports
    }).onConflictDoNothing().returning({ id: users.id, credentialVersion: users.credentialVersion })
    if (!created) return null // a simultaneous first sign-in created it
    await deps.audit.record(AUDIT.signup, created.id, meta)
    await deps.audit.record(AUDIT.idpLink, created.id, meta)
    return { userId: created.id, isNewUser: true, credentialVersion: created.credentialVersion }
  }

  return {
    /** the account this Google identity signs in to, or null when it cannot have one, or Disabled */
    async signin (identity: GoogleIdentity, acquisitionCode: string | undefined, meta: RequestMeta): Promise<GoogleSignin | Disabled | null> {
      let outcome: GoogleSignin | Disabled | 'refused' | null = null
      // Two simultaneous first sign-ins race on the unique email and google_sub: the loser matches again.
      for (let tries = 0; tries < 2 && outcome === null; tries++) {
        try {
          outcome = await attempt(identity, acquisitionCode, meta)
        } catch (err) {
          if (!isUniqueViolation(err)) throw err
        }
      }
      if (outcome === null || outcome === 'refused') return null
      if ('disabled' in outcome) {
        await deps.audit.record(AUDIT.signinFailure, outcome.disabled, meta)
        return outcome
      }
      await deps.audit.record(AUDIT.signinSuccess, outcome.userId, meta)
      // a listed address becomes admin (Google has confirmed it); others pay a lookup in memory
      if (deps.adminEmails?.listed(identity.email)) await deps.adminEmails.promote(outcome.userId)
      return outcome
    },

    /**
     * Unlink Google from `userId`, from its session `publicId`, which goes on while every other
     * session ends (a credential change); 'no-password' when unlinking would leave the account
     * without a way to sign in
     */
    async unlink (userId: string, publicId: string, meta: RequestMeta): Promise<'ok' | 'no-password' | 'unknown'> {
      const [user] = await db.select({ passwordHash: users.passwordHash, googleSub: users.googleSub }).from(users).where(eq(users.id, userId))
      if (!user) return 'unknown'
      if (user.passwordHash === null) return 'no-password'
      if (user.googleSub === null) return 'ok'
      const unlinked = await deps.changeCredential(userId, publicId, async (tx) => {
        const rows = await tx.update(users).set({ googleSub: null })
          .where(and(eq(users.id, userId), isNotNull(users.passwordHash))).returning({ id: users.id })
        return rows.length ? true : null
      })
      if (!unlinked) return 'no-password'
      deps.accountChanges.changed(userId)
      await deps.audit.record(AUDIT.idpUnlink, userId, meta)
      await deps.notices.send(userId, { what: NOTICE.googleUnlinked, ip: meta.ip, userAgent: meta.userAgent })
      return 'ok'
    }
  }
}

export type GoogleAccountService = ReturnType<typeof createGoogleAccountService>
