// Sign-up, sign-in, confirmation and account information (docs/architecture.md, HTTP contract). No Fastify types here.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { authTokens, signinFailures, users } from '../../db/schema/index.ts'
import { PromocodeRefused } from '../../errors.ts'
import type { FieldError } from '../../../schemas/common.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import type { CaptchaService } from './captcha.ts'
import { CAPTCHA_MESSAGE, PROMO_MESSAGE } from './form-errors.ts'
import { hashLinkSecret, newLinkSecret } from './link-secrets.ts'
import type { MailService } from './mail.ts'
import type { PasswordService } from './passwords.ts'
import type { PromocodeService } from '../billing/promocodes.ts'
import { currentSubscription } from '../billing/subscription-state.ts'
import { createViewCache } from '../caches/view-cache.ts'
import type { AccountChanges } from './changes.ts'
import { mfaStatusColumns } from '../mfa/index.ts'

export const CONFIRM_TTL_MS = 7 * 24 * 3600 * 1000
/** the NOTIFY channel of drizzle/0003's triggers: a user id whose row or subscriptions changed */
export const ACCOUNT_CHANGED_CHANNEL = 'account_changed'
const BACKOFF_AFTER = 5
const BACKOFF_MAX_S = 300

export const MESSAGES = {
  wrongCredentials: 'Wrong e-mail or password',
  // staff disabled the account (docs/operations.md, Support → Actions): said only to whoever proved its credential
  accountDisabled: 'account disabled',
  captcha: CAPTCHA_MESSAGE
} as const

export interface SignupInput {
  email: string
  password: string
  captchaToken: string
  promocode?: string
  acquisitionCode?: string
}

export type SigninOutcome =
  /** credentialVersion: the users.credential_version read with the password hash it verified */
  | { ok: true, userId: string, credentialVersion: number }
  | { ok: false, fieldError: FieldError }
  | { ok: false, retryAfter: number }

/** the answer to a sign-in that proved the credential of a disabled account (password, Google, passkey) */
export const DISABLED_ANSWER = { status: 'error' as const, fieldError: { field: 'email' as const, message: MESSAGES.accountDisabled } }

interface Deps {
  database: Database
  passwords: PasswordService
  captcha: CaptchaService
  mail: MailService
  audit: AuditService
  promocodes: PromocodeService
  publicUrl: string
  signupFreeReports: number
  /** the view below listens to it: the next info() of a changed account reads it again */
  accountChanges: AccountChanges
  /** ADMIN_EMAILS: a listed address becomes admin at its confirmation and its sign-ins */
  adminEmails?: ListedAdmins
  now?: () => number
}

/**
 * ADMIN_EMAILS as sign-in and confirmation use it (src/services/staff/admin-emails.ts implements it;
 * declared here so that accounts imports nothing of staff, which builds on accounts)
 */
export interface ListedAdmins {
  /** whether the address is listed: a lookup in memory */
  listed: (email: string) => boolean
  /** make the account admin when its address is listed and confirmed */
  promote: (userId: string) => Promise<unknown>
}

export function createAccountService (deps: Deps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  const fail = (field: FieldError['field'], message: string) => ({ status: 'error' as const, fieldError: { field, message } })

  function confirmationMail (to: string, secret: string) {
    const link = `${deps.publicUrl}/confirm/${secret}`
    return {
      to,
      subject: 'Confirm your e-mail address',
      text: `Welcome to Profile Interest Reports.\n\nConfirm your e-mail address by opening this link within 7 days:\n${link}\n\nIf you did not sign up, ignore this message.\n`,
      link
    }
  }

  async function newConfirmation (tx: typeof db, userId: string): Promise<string> {
    const { secret, hash } = newLinkSecret()
    await tx.insert(authTokens).values({ hash, kind: 'confirm', userId, expiresAt: new Date(now() + CONFIRM_TTL_MS) })
    return secret
  }

  // A sign-in's reads, built into SQL once rather than on every sign-in (Drizzle's query building
  // cost about 40 us of CPU a statement, README: Benchmarks)
  const signinUser = db.select({ id: users.id, passwordHash: users.passwordHash, credentialVersion: users.credentialVersion, disabledAt: users.disabledAt }).from(users)
    .where(eq(users.email, sql.placeholder('email'))).prepare('signin_user')
  // A rehash writes only over the hash it verified: a password changed meanwhile is never written back
  const rehashUser = db.update(users).set({ passwordHash: sql`${sql.placeholder('hash')}` })
    .where(and(eq(users.id, sql.placeholder('id')), eq(users.passwordHash, sql.placeholder('verified')))).prepare('signin_rehash')
  const clearFailures = db.delete(signinFailures).where(eq(signinFailures.email, sql.placeholder('email'))).prepare('signin_failures_clear')

  // The per-address backoff (docs/decisions/limits.md, Rate limits): 1, 2, 4 … 300 s from the fifth
  // failure on, registered or not. Every attempt is claimed, counted as a failure, in one statement
  // before argon2 runs; the row lock serializes the claims, and a claim on a locked address fails,
  // so a burst of parallel guesses gets one verification per backoff window, not one each. A
  // success deletes the row. The outer select reads the lock the claim was refused on (the snapshot
  // before the statement).
  const CLAIM = `with claim as (
      insert into signin_failures as f (email, failures, locked_until, updated_at) values ($1, 1, null, $2::timestamptz)
      on conflict (email) do update set
        failures = f.failures + 1,
        updated_at = excluded.updated_at,
        locked_until = case when f.failures + 1 >= ${BACKOFF_AFTER}
          then excluded.updated_at + make_interval(secs => least(${BACKOFF_MAX_S}, power(2, f.failures + 1 - ${BACKOFF_AFTER})))
          else null end
      where f.locked_until is null or f.locked_until <= excluded.updated_at
      returning f.failures
    )
    select (select failures from claim) as claimed, (select locked_until from signin_failures where email = $1) as locked_until`

  /** claims a sign-in attempt for this address: 0 when it may go on, else the seconds until it may */
  async function claimAttempt (email: string): Promise<number> {
    const at = now()
    const [row] = await deps.database.query<{ claimed: number | null, locked_until: Date | string | null }>(CLAIM, [email, new Date(at).toISOString()])
    if (row?.claimed != null) return 0
    const until = row?.locked_until ? new Date(row.locked_until).getTime() : 0
    // refused by a lock a concurrent claim has just set, newer than this statement's snapshot: 1 s at least
    return Math.max(1, Math.ceil((until - at) / 1000))
  }

  /** whether the account of this address is disabled */
  async function isDisabled (email: string): Promise<boolean> {
    const [row] = await db.select({ disabledAt: users.disabledAt }).from(users).where(eq(users.email, email))
    return row?.disabledAt != null
  }

  async function loadInfo (userId: string) {
    const [row] = await db.select({ user: users, mfa: mfaStatusColumns(users.id) }).from(users).where(eq(users.id, userId))
    if (!row) return null
    const { user, mfa } = row
    const subscription = await currentSubscription(db, userId)
    return {
      id: user.id,
      email: user.email,
      confirmed: user.confirmedAt !== null,
      hasPassword: user.passwordHash !== null,
      idp: { google: user.googleSub !== null },
      role: user.role,
      ...(user.acquisitionCode !== null ? { acquisitionCode: user.acquisitionCode } : {}),
      ...(user.promocode !== null ? { promocode: user.promocode } : {}),
      reportCredits: user.reportCredits,
      subscription,
      mfa,
      createdAt: user.createdAt.toISOString()
    }
  }

  // GET /auth/info comes with every page load and poll of a client: served from memory, one entry
  // per user, dropped when the account changes (src/services/caches/view-cache.ts). An unknown user is not kept.
  const infoView = createViewCache({ load: loadInfo, keep: (v) => v !== null, maxEntries: 100_000, ttlMs: 60_000 })
  deps.accountChanges.on({ changed: (userId) => { infoView.invalidate(userId) }, missed: () => { infoView.clear() } })

  return {
    async signup (input: SignupInput, meta: RequestMeta) {
      const email = input.email
      if (!await deps.captcha.verify(input.captchaToken, meta.ip)) return fail('email', MESSAGES.captcha)
      const weak = deps.passwords.policy(input.password, email)
      if (weak) return fail('password', weak)
      if (input.promocode !== undefined && !await deps.promocodes.isUsable(input.promocode)) return fail('promocode', PROMO_MESSAGE)

      // Hash before knowing whether the address is taken, so both paths cost the same.
      const passwordHash = await deps.passwords.hash(input.password)
      let created: { id: string, secret: string } | null = null
      try {
        created = await db.transaction(async (tx) => {
          const [user] = await tx.insert(users).values({
            email,
            passwordHash,
            acquisitionCode: input.acquisitionCode ?? null,
            reportCredits: deps.signupFreeReports
          }).onConflictDoNothing({ target: users.email }).returning({ id: users.id })
          if (!user) return null
          if (input.promocode !== undefined) {
            const credits = await deps.promocodes.consume(tx, input.promocode)
            if (credits === null) throw new PromocodeRefused()
            await tx.update(users).set({ promocode: input.promocode, reportCredits: sql`${users.reportCredits} + ${credits}` })
              .where(eq(users.id, user.id))
          }
          return { id: user.id, secret: await newConfirmation(tx, user.id) }
        })
      } catch (err) {
        if (err instanceof PromocodeRefused) return fail('promocode', PROMO_MESSAGE)
        throw err
      }

      if (created) {
        await deps.audit.record(AUDIT.signup, created.id, meta)
        deps.mail.sendLater(confirmationMail(email, created.secret))
      } else if (!await isDisabled(email)) {
        // No account enumeration: the same answer, and the owner hears about it instead (unless
        // staff disabled the account: its mails are held).
        deps.mail.sendLater({
          to: email,
          subject: 'Someone tried to sign up with your e-mail address',
          text: 'Someone tried to create an account with this e-mail address, which already has one.\n\n' +
            'If it was you, sign in instead, or recover your password from the sign-in page. Otherwise, ignore this message.\n'
        })
      }
      return { status: 'success' as const }
    },

    async signin (email: string, password: string, meta: RequestMeta): Promise<SigninOutcome> {
      const attempt = await deps.passwords.attempt(async () => {
        // the two statements are independent: one round trip's wait instead of two
        const [retryAfter, [user]] = await Promise.all([claimAttempt(email), signinUser.execute({ email })])
        if (retryAfter > 0) return { retryAfter, user, ok: false, rehash: false }
        if (!user?.passwordHash) {
          await deps.passwords.verifyDummy(password)
          return { retryAfter, user, ok: false, rehash: false }
        }
        return { retryAfter, user, ...await deps.passwords.verify(user.passwordHash, password) }
      })
      const { retryAfter, user, ok, rehash } = attempt
      if (retryAfter > 0) return { ok: false, retryAfter }
      if (!user || !ok) {
        await deps.audit.record(AUDIT.signinFailure, user?.id ?? null, meta)
        return { ok: false, fieldError: { field: 'password', message: MESSAGES.wrongCredentials } }
      }
      // A disabled account says so, but only to whoever proved its password: a wrong one is answered
      // as always, so the answer tells a guesser nothing. No session starts (and none could: its
      // write checks disabled_at too, src/services/sessions/rows.ts).
      if (user.disabledAt !== null) {
        await deps.audit.record(AUDIT.signinFailure, user.id, meta)
        return { ok: false, fieldError: DISABLED_ANSWER.fieldError }
      }
      if (rehash) await rehashUser.execute({ hash: await deps.passwords.hash(password), id: user.id, verified: user.passwordHash })
      // a success clears the address's claims, this one included (beside the audit row: one wait for both)
      await Promise.all([clearFailures.execute({ email }), deps.audit.record(AUDIT.signinSuccess, user.id, meta)])
      // only a listed address costs a statement (it is admin from then on, if confirmed)
      if (deps.adminEmails?.listed(email)) await deps.adminEmails.promote(user.id)
      return { ok: true, userId: user.id, credentialVersion: user.credentialVersion }
    },

    /**
     * A sign-in whose session was refused: the credential it proved changed before the session was
     * written (docs/decisions/accounts.md, Credential versions). Its success row is followed by a
     * failure row.
     */
    async signinRefused (userId: string, meta: RequestMeta): Promise<void> {
      await deps.audit.record(AUDIT.signinFailure, userId, meta)
    },

    /** true when the link confirms (or already confirmed) an account; false for unknown or expired */
    async confirm (secret: string, meta: RequestMeta): Promise<boolean> {
      const hash = hashLinkSecret(secret)
      const [token] = await db.select().from(authTokens)
        .where(and(eq(authTokens.hash, hash), eq(authTokens.kind, 'confirm'), gt(authTokens.expiresAt, new Date(now()))))
      if (!token) return false
      const confirmedNow = await db.transaction(async (tx) => {
        await tx.update(authTokens).set({ usedAt: new Date(now()) }).where(and(eq(authTokens.hash, hash), isNull(authTokens.usedAt)))
        const rows = await tx.update(users).set({ confirmedAt: new Date(now()) })
          .where(and(eq(users.id, token.userId), isNull(users.confirmedAt))).returning({ id: users.id })
        return rows.length > 0
      })
      if (confirmedNow) {
        infoView.invalidate(token.userId)
        await deps.audit.record(AUDIT.confirm, token.userId, meta)
        await deps.adminEmails?.promote(token.userId)
      }
      return true
    },

    async resendConfirmation (userId: string): Promise<void> {
      const [user] = await db.select({ email: users.email, confirmedAt: users.confirmedAt, disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId))
      // a disabled account's mails are held
      if (!user || user.confirmedAt || user.disabledAt) return
      const secret = await newConfirmation(db, userId)
      deps.mail.sendLater(confirmationMail(user.email, secret))
    },

    /** whether staff disabled this account (a passkey sign-in asks, having proved the passkey) */
    async disabled (userId: string): Promise<boolean> {
      const [row] = await db.select({ disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId))
      return row?.disabledAt != null
    },

    /** what GET /auth/info shows, from memory while the account is unchanged */
    info: (userId: string) => infoView.get(userId)
  }
}

export type AccountService = ReturnType<typeof createAccountService>
