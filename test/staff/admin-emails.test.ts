// ADMIN_EMAILS (docs/operations.md, Support): a listed address becomes admin once confirmed: at its
// confirmation, at a password sign-in of the confirmed account, at a Google sign-in (which confirms
// it). Never before confirmation, never another address; each promotion is an `admin.role` audit row
// naming ADMIN_EMAILS. A malformed list refuses to start.
import t from '../tap.ts'
import { build, CHEAP_ARGON2, signedInUser, testConfig, uniqueEmail } from '../helper.ts'
import { hashLinkSecret, newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import { startGoogleCerts, TEST_CLIENT_ID } from '../peers/google-certs.ts'
import { info, signup } from '../accounts/support.ts'

const listedA = uniqueEmail('first-admin')
const listedB = uniqueEmail('second-admin')
const listedG = uniqueEmail('google-admin')
const peer = await startGoogleCerts()
t.teardown(() => peer.close())
const app = await build(t, {
  ...CHEAP_ARGON2,
  // spaces and capitals as an operator may write them
  ADMIN_EMAILS: ` ${listedA.toUpperCase()}, ${listedB} ,${listedG}`,
  GOOGLE_CLIENT_IDS: TEST_CLIENT_ID,
  GOOGLE_CERTS_URL: peer.url
})
const roleOf = async (email: string) => (await app.database.query<{ role: string }>('select role from users where email = $1', [email]))[0]?.role
const rows = (email: string) => app.database.query<{ actor_id: string | null, ip: string | null, details: Record<string, unknown> }>(
  "select a.actor_id, a.ip, a.details from audit_events a join users u on u.id = a.user_id where a.kind = 'admin.role' and u.email = $1", [email])

/** a confirmation link for the account, as the mailed one would be */
async function confirmLink (email: string): Promise<string> {
  const { secret, hash } = newLinkSecret()
  await app.database.query("insert into auth_tokens (hash, kind, user_id, expires_at) select $1, 'confirm', id, now() + interval '1 day' from users where email = $2", [hash, email])
  t.equal(hashLinkSecret(secret), hash)
  return secret
}

t.test('a listed address is admin from its confirmation on, not before', async (t) => {
  const user = await signedInUser(app, { email: listedA })
  t.equal((await info(app, user.token)).json().role, 'user', 'not confirmed: not admin')
  const confirmed = await app.inject({ method: 'POST', url: `/api/v1/auth/confirm/${await confirmLink(listedA)}` })
  t.equal(confirmed.statusCode, 200)
  t.equal(await roleOf(listedA), 'admin')
  t.equal((await info(app, user.token)).json().role, 'admin', 'GET /auth/info says so at once')
  const audit = await rows(listedA)
  t.equal(audit.length, 1)
  t.same(audit[0], { actor_id: null, ip: null, details: { from: 'user', to: 'admin', reason: 'listed in ADMIN_EMAILS' } })
})

t.test('a listed account confirmed before the list named it becomes admin at its next sign-in; others never', async (t) => {
  await signup(app, { email: listedB })
  await app.database.query('update users set confirmed_at = now() where email = $1', [listedB])
  t.equal(await roleOf(listedB), 'user')
  await signedInUser(app, { email: listedB, signUp: false })
  t.equal(await roleOf(listedB), 'admin')
  await signedInUser(app, { email: listedB, signUp: false })
  t.equal((await rows(listedB)).length, 1, 'promoted once')

  const other = uniqueEmail('not-listed')
  await signup(app, { email: other })
  await app.database.query('update users set confirmed_at = now() where email = $1', [other])
  await signedInUser(app, { email: other, signUp: false })
  t.equal(await roleOf(other), 'user', 'an address not listed stays a user')
})

t.test('a Google sign-in of a listed address makes it admin (Google confirmed it)', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: peer.idToken({ sub: `9${process.pid}`, email: listedG }), token: true } })
  t.equal(res.json().status, 'success')
  t.equal(await roleOf(listedG), 'admin')
  t.equal((await info(app, res.json().token)).json().role, 'admin')
})

t.test('a malformed ADMIN_EMAILS refuses to start, naming the variable', async (t) => {
  t.throws(() => testConfig(t, { ADMIN_EMAILS: 'ops@example.com, not-an-address' }), /ADMIN_EMAILS must be a comma list of e-mail addresses/)
  t.same(testConfig(t, { ADMIN_EMAILS: '' }).adminEmails, [])
})
