// Credential versions (src/services/sessions/credential-change.ts; docs/decisions/accounts.md,
// Credential versions): every credential change moves the account's version on and ends the
// sessions proved against an older one, on this instance and another; a sign-in that read the old
// credential before a change and writes its session after it gets none (the change landing between
// the two, driven by holding the sign-in inside its argon2 verification, on both databases; on
// PostgreSQL also the change still in flight as the sign-in writes, ordered by locks); the rehash
// on sign-in never writes an old password back over a new one.
import argon2 from 'argon2'
import postgres from 'postgres'
import t, { type Test } from '../tap.ts'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, freshDatabase, GOOD_PASSWORD, onPostgres, sessionCookie, signedInUser, uniqueEmail, type SignedInUser } from '../helper.ts'
import { claims, info, refresh, WRONG_CREDENTIALS } from '../accounts/support.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { databaseUrl } from '../streams/databases.ts'
import { until } from '../peers/wait.ts'

const NEW_PASSWORD = 'a brand new passphrase 42'
// the lowest argon2 cost; one client address signs up and in many times here
const ENV = {
  ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1', RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000', RATE_LIMIT_SIGNIN_EMAIL: '1000'
}

let peer: GoogleCertsPeer
let env: Record<string, string>
let database: Awaited<ReturnType<typeof freshDatabase>>
let app: Awaited<ReturnType<typeof build>>

t.before(async () => {
  peer = await startGoogleCerts()
  t.teardown(() => peer.close())
  env = { ...ENV, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: peer.url }
  database = await freshDatabase(t)
  app = await build(t, env, { database })
})

let subSeq = 0
const newSub = () => `2${String(process.pid).padStart(8, '0')}${String(++subSeq).padStart(10, '0')}`

const userIdOf = (user: SignedInUser) => claims(user.token).sub as string
const sidOf = (user: SignedInUser) => claims(user.token).sid as string

const versionOf = async (userId: string) =>
  (await app.database.query<{ v: number }>('select credential_version as v from users where id = $1', [userId]))[0].v
const hashOf = async (userId: string) =>
  (await app.database.query<{ h: string | null }>('select password_hash as h from users where id = $1', [userId]))[0].h
/** the user's live sessions: public id and the credential version each proved */
const liveSessions = async (userId: string) =>
  (await app.database.query<{ sid: string, v: number }>(
    'select public_id::text as sid, credential_version as v from sessions where user_id = $1 and ended_at is null order by created_at', [userId]))

const signinAt = (target: FastifyInstance, email: string, password: string) =>
  target.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password, token: true } })
const changePassword = (user: SignedInUser, currentPassword: string, newPassword: string, target: FastifyInstance = app) =>
  target.inject({ method: 'POST', url: '/api/v1/auth/password', headers: user.auth, payload: { currentPassword, newPassword } })
const google = (email: string, sub: string) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: peer.idToken({ sub, email }), token: true } })
const unlink = (user: { auth: Record<string, string> }) => app.inject({ method: 'DELETE', url: '/api/v1/auth/idp', headers: user.auth })

/** a recovery link of the account, as its mail would bring it (only the secret's hash is stored) */
async function recoveryLink (userId: string): Promise<string> {
  const { secret, hash } = newLinkSecret()
  await app.database.query("insert into auth_tokens (hash, kind, user_id, expires_at) values ($1, 'recovery', $2, now() + interval '1 hour')", [hash, userId])
  return secret
}
const reset = (secret: string, password: string) =>
  app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${secret}`, payload: { password } })

/** a refused sign-in: the wrong-password answer, no token, no session cookie */
function refusedSignin (t: Test, res: LightMyRequestResponse, what: string) {
  t.same(res.json(), WRONG_CREDENTIALS, what)
  t.notOk(sessionCookie(res), 'no session cookie')
}

/**
 * Holds the next sign-in that verifies `password` inside argon2's verification: its hash has been
 * read (`read` resolves with it) and its session not yet written, until release(). The library is
 * wrapped, not the service: the sign-in runs its own code around it.
 */
function holdNextVerify (t: Test, password: string) {
  const original = argon2.verify.bind(argon2)
  let reached!: (hash: string) => void
  const read = new Promise<string>((resolve) => { reached = resolve })
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  let armed = true
  t.capture(argon2, 'verify', (async (hash: string, plain: string | Buffer, ...rest: never[]) => {
    if (armed && plain === password) {
      armed = false
      reached(hash)
      await released
    }
    return await original(hash, plain, ...rest)
  }) as typeof argon2.verify)
  return { read, release }
}

interface RaceCase {
  name: string
  /** the account, and the sessions and credentials the change needs */
  setup: () => Promise<{ email: string, oldPassword: string, userId: string, changer?: SignedInUser, change: () => Promise<LightMyRequestResponse> }>
}

const RACES: RaceCase[] = [
  {
    name: 'a password change',
    async setup () {
      const changer = await signedInUser(app)
      return {
        email: changer.email, oldPassword: GOOD_PASSWORD, userId: userIdOf(changer), changer,
        change: () => changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)
      }
    }
  },
  {
    name: 'a reset through a recovery link',
    async setup () {
      const user = await signedInUser(app)
      const secret = await recoveryLink(userIdOf(user))
      return { email: user.email, oldPassword: GOOD_PASSWORD, userId: userIdOf(user), change: () => reset(secret, NEW_PASSWORD) }
    }
  },
  {
    name: 'Google removing an unproven password (the squatter\'s sign-in)',
    async setup () {
      // a sign-up password is unproven: the mailbox's owner signing in with Google removes it
      const squatter = await signedInUser(app)
      return { email: squatter.email, oldPassword: GOOD_PASSWORD, userId: userIdOf(squatter), change: () => google(squatter.email, newSub()) }
    }
  }
]

for (const race of RACES) {
  t.test(`the sign-in race: ${race.name} lands between the sign-in's hash read and its session: no session`, async (t) => {
    const { email, oldPassword, userId, changer, change } = await race.setup()
    const before = await versionOf(userId)
    const readHash = await hashOf(userId)
    const hold = holdNextVerify(t, oldPassword)

    const racing = signinAt(app, email, oldPassword)
    t.equal(await hold.read, readHash, 'the sign-in has read the password hash, the old one')
    const changed = await change()
    t.equal(changed.json().status, 'success', 'the change is made meanwhile')
    t.equal(await versionOf(userId), before + 1, 'the credential version moved on')
    hold.release()

    refusedSignin(t, await racing, 'the old password\'s sign-in, finishing after the change, is refused as a wrong password')
    const live = await liveSessions(userId)
    t.notOk(live.some((s) => s.v !== before + 1), 'no live session proved the old credential')
    if (changer) t.same(live.map((s) => s.sid), [sidOf(changer)], 'only the changer\'s session lives')
    const kinds = await app.database.query<{ kind: string }>(
      "select kind from audit_events where user_id = $1 and kind like 'signin.%' order by id desc limit 1", [userId])
    t.equal(kinds[0].kind, 'signin.failure', 'the refused sign-in is audited as a failure')
  })
}

t.test('a sign-in that read the credential before a change finished first: the change ends its session, its JWT answers 401', async (t) => {
  const changer = await signedInUser(app)
  const early = await signedInUser(app, { email: changer.email, signUp: false })
  t.equal((await info(app, early.token)).statusCode, 200)
  t.equal((await changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)).json().status, 'success')
  t.equal((await info(app, early.token)).statusCode, 401, 'the old password\'s JWT is refused')
  t.equal((await refresh(app, early.cookie)).statusCode, 401, 'and its cookie')
  t.equal((await info(app, changer.token)).statusCode, 200, 'the changer goes on')
})

t.test('a change in flight while the sign-in writes its session: the insert waits for it, then is refused (PostgreSQL)', {
  skip: onPostgres ? false : 'concurrent transactions need PostgreSQL (set TEST_DATABASE_URL); PGlite runs one statement at a time'
}, async (t) => {
  const changer = await signedInUser(app)
  const other = await signedInUser(app, { email: changer.email, signUp: false })
  const userId = userIdOf(changer)
  const sql = postgres(databaseUrl(database), { max: 2, onnotice: () => {} })
  t.teardown(() => sql.end())
  const blockedBy = async (pid: number) => (await sql<Array<{ pid: number }>>`
    select pid from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`).map((r) => r.pid)

  // The test holds the other session's row: the change bumps the version, writes the password and
  // then waits to end that session, its transaction open and the user's row locked.
  const lock = await sql.reserve()
  t.teardown(() => lock.release())
  const [{ pid: lockPid }] = await lock<Array<{ pid: number }>>`select pg_backend_pid() as pid`
  await lock`begin`
  await lock`select 1 from sessions where public_id = ${sidOf(other)} for update`
  const changing = changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)
  const [changePid] = await until(async () => { const p = await blockedBy(lockPid); return p.length ? p : undefined }, { what: 'the change waiting', timeoutMs: 30_000 })

  // the sign-in reads the old hash (the change has not committed), verifies it and waits to insert
  const racing = signinAt(app, changer.email, GOOD_PASSWORD)
  await until(async () => (await blockedBy(changePid)).length > 0, { what: 'the sign-in\'s insert waiting for the change', timeoutMs: 30_000 })

  await lock`rollback`
  t.equal((await changing).json().status, 'success', 'the change commits')
  refusedSignin(t, await racing, 'the sign-in that waited is refused: the version it read has moved on')
  t.same((await liveSessions(userId)).map((s) => s.sid), [sidOf(changer)], 'only the changer\'s session lives')
  t.equal((await info(app, other.token)).statusCode, 401, 'the other session ended')
})

t.test('the rehash on sign-in writes only over the hash it verified: a newer password stays', async (t) => {
  // signed up under cheaper argon2 settings; the instance with the new settings re-hashes at sign-in
  const changer = await signedInUser(app)
  const userId = userIdOf(changer)
  const upgraded = await build(t, { ...env, ARGON2_MEMORY_KIB: '2048', ARGON2_TIME_COST: '2' }, { database })
  const hold = holdNextVerify(t, GOOD_PASSWORD)
  const racing = signinAt(upgraded, changer.email, GOOD_PASSWORD)
  t.match(await hold.read, /m=1024,p=1,t=1/, 'the sign-in read the hash of the old settings: it will re-hash')
  t.equal((await changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)).json().status, 'success')
  const changedHash = await hashOf(userId)
  hold.release()
  refusedSignin(t, await racing, 'the sign-in is refused')
  t.equal(await hashOf(userId), changedHash, 'the new password\'s hash was not overwritten by the re-hash of the old one')
  t.same((await signinAt(app, changer.email, GOOD_PASSWORD)).json(), WRONG_CREDENTIALS, 'the old password does not sign in')
  t.equal((await signinAt(app, changer.email, NEW_PASSWORD)).json().status, 'success', 'the new one does')

  // with no change meanwhile, the re-hash happens
  const other = await signedInUser(app)
  t.equal((await signinAt(upgraded, other.email, GOOD_PASSWORD)).json().status, 'success')
  t.match(await hashOf(userIdOf(other)), /m=2048,p=1,t=2/, 'an unchanged password is re-hashed')
})

t.test('a password change ends the other sessions on a second instance too', async (t) => {
  const second = await build(t, env, { database })
  const changer = await signedInUser(app)
  const other = await signedInUser(app, { email: changer.email, signUp: false })
  t.equal((await info(second, other.token)).statusCode, 200, 'the second instance accepts the other session\'s JWT')
  t.equal((await changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)).json().status, 'success')
  await until(async () => (await info(second, other.token)).statusCode === 401, { what: 'the second instance refusing the ended session', timeoutMs: 30_000 })
  t.equal((await refresh(second, other.cookie)).statusCode, 401, 'its cookie is refused there too')
  t.equal((await info(second, changer.token)).statusCode, 200, 'the changer\'s session goes on there')
})

t.test('every credential change moves the version on and ends the sessions proved against the old one', async (t) => {
  t.test('password change: the changer\'s session is kept and moved to the new version', async (t) => {
    const changer = await signedInUser(app)
    const other = await signedInUser(app, { email: changer.email, signUp: false })
    const userId = userIdOf(changer)
    t.equal(await versionOf(userId), 1)
    t.equal((await changePassword(changer, GOOD_PASSWORD, NEW_PASSWORD)).json().status, 'success')
    t.equal(await versionOf(userId), 2)
    t.same(await liveSessions(userId), [{ sid: sidOf(changer), v: 2 }])
    t.equal((await info(app, other.token)).statusCode, 401)
    const fresh = await signinAt(app, changer.email, NEW_PASSWORD)
    t.equal(fresh.json().status, 'success', 'a sign-in with the new password')
    t.same((await liveSessions(userId)).map((s) => s.v), [2, 2], 'proves the new version')
  })

  t.test('reset through a recovery link: every session ends', async (t) => {
    const user = await signedInUser(app)
    const userId = userIdOf(user)
    const secret = await recoveryLink(userId)
    t.equal((await reset(secret, NEW_PASSWORD)).json().status, 'success')
    t.equal(await versionOf(userId), 2)
    t.same(await liveSessions(userId), [])
    t.equal((await info(app, user.token)).statusCode, 401)
    t.equal((await reset(secret, 'another new passphrase 7')).json().status, 'error', 'a used link changes nothing')
    t.equal(await versionOf(userId), 2, 'and moves nothing')
  })

  t.test('password set through a recovery link on a Google-only account: the Google sessions end', async (t) => {
    const email = uniqueEmail('google-only')
    const first = await google(email, newSub())
    t.equal(first.json().isNewUser, true)
    const userId = claims(first.json().token).sub as string
    t.equal((await app.database.query<{ h: string | null }>('select password_hash as h from users where id = $1', [userId]))[0].h, null)
    t.equal((await reset(await recoveryLink(userId), NEW_PASSWORD)).json().status, 'success')
    t.equal(await versionOf(userId), 2)
    t.same(await liveSessions(userId), [])
    t.equal((await info(app, first.json().token)).statusCode, 401)
  })

  t.test('Google unlinked: the unlinking session is kept, the others end', async (t) => {
    const user = await signedInUser(app)
    const userId = userIdOf(user)
    const sub = newSub()
    // a proven password stays when Google links; its sessions go on, but an unproven one would go
    await app.database.query('update users set password_proven = true where id = $1', [userId])
    const viaGoogle = await google(user.email, sub)
    t.equal(viaGoogle.json().status, 'success')
    t.equal(await versionOf(userId), 1, 'linking Google adds a credential: no change of version')
    const googleUser = { auth: { authorization: `Bearer ${viaGoogle.json().token}` } }
    t.equal((await unlink(googleUser)).statusCode, 200)
    t.equal(await versionOf(userId), 2)
    t.same(await liveSessions(userId), [{ sid: claims(viaGoogle.json().token).sid, v: 2 }])
    t.equal((await info(app, user.token)).statusCode, 401, 'the password session ended')
    t.equal((await unlink(googleUser)).statusCode, 200, 'unlinking again')
    t.equal(await versionOf(userId), 2, 'changes nothing')
    t.same((await google(user.email, sub)).json().status, 'success', 'Google links again (by e-mail)')
  })

  t.test('Google removing an unproven password: every session of the account ends, the Google sign-in proves the new version', async (t) => {
    const squatter = await signedInUser(app)
    const userId = userIdOf(squatter)
    const owner = await google(squatter.email, newSub())
    t.equal(owner.json().status, 'success')
    t.equal(await hashOf(userId), null, 'the password is gone')
    t.equal(await versionOf(userId), 2)
    t.same(await liveSessions(userId), [{ sid: claims(owner.json().token).sid, v: 2 }])
    t.equal((await info(app, squatter.token)).statusCode, 401)
  })

  t.test('a change asked by a session that has ended meanwhile is refused and changes nothing', async (t) => {
    const user = await signedInUser(app)
    const userId = userIdOf(user)
    await app.database.query('update sessions set ended_at = now() where public_id = $1', [sidOf(user)])
    const hash = await hashOf(userId)
    await t.rejects(app.services.credentials.change(userId, sidOf(user), async () => true), { statusCode: 401, message: 'access denied' })
    t.equal(await versionOf(userId), 1, 'the version stays')
    t.equal(await hashOf(userId), hash)
    t.equal(await app.services.credentials.change(userId, null, async () => null), null, 'a write with nothing to change')
    t.equal(await versionOf(userId), 1, 'moves nothing')
  })
})

