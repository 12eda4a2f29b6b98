// Recovery cuts an intruder's programs off (docs/decisions/accounts.md, Recovery cuts off an
// intruder): a reset through the recovery link revokes every API key of the account and disables
// every webhook endpoint, unless the person ticks keepApiKeys; DELETE /auth/sessions does the same
// with {apiKeys: true}; a password change made knowing the old password keeps them and its mail
// lists them. The audit trail has a row per key revoked and per endpoint disabled. The
// cross-instance half (a key refused on another instance within a second) is
// test/scale-out/revocation.test.ts.
import t from '../tap.ts'
import { build, GOOD_PASSWORD, signedInUser, type SignedInUser } from '../helper.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import type { Mail } from '../../src/services/accounts/mail.ts'
import { issueKey, UNAUTHORIZED } from './support.ts'

const NEW_PASSWORD = 'a brand new passphrase 42'
const HOOK = 'http://127.0.0.1:9/hook'

const mails: Mail[] = []
let app: Awaited<ReturnType<typeof build>>
t.before(async () => {
  const record = (m: Mail) => { mails.push(m) }
  app = await build(t, { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }, {
    mail: { send: async (m: Mail) => { record(m) }, sendLater: record, close: async () => {} }
  })
})

/** a user with two API keys and two webhook endpoints, made from a fresh session */
async function equipped () {
  const user = await signedInUser(app)
  const keys = [await issueKey(app, user.auth, { name: 'one' }), await issueKey(app, user.auth, { name: 'two' })]
  const hooks: string[] = []
  for (const url of [HOOK, `${HOOK}/2`]) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: user.auth, payload: { url, events: ['report.ready'] } })
    if (res.statusCode !== 201) throw new Error(`webhook refused: ${res.body}`)
    hooks.push(res.json().id)
  }
  for (const key of keys) t.equal((await app.inject({ url: '/api/v1/report', headers: key.auth })).statusCode, 200, 'the key works before')
  return { user, keys, hooks }
}

/** a recovery link of the user's account, as the mail would carry it */
async function recoveryLink (user: SignedInUser): Promise<string> {
  const { secret, hash } = newLinkSecret()
  await app.database.query(`insert into auth_tokens (hash, kind, user_id, expires_at)
    select $1, 'recovery', id, now() + interval '1 hour' from users where email = $2`, [hash, user.email])
  return secret
}

const reset = async (user: SignedInUser, body: Record<string, unknown> = {}) =>
  await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${await recoveryLink(user)}`, payload: { password: NEW_PASSWORD, ...body } })

const webhooksOf = async (auth: Record<string, string>) =>
  (await app.inject({ url: '/api/v1/webhooks', headers: auth })).json().items as Array<{ id: string, url: string, disabledAt: string | null }>

const signIn = async (user: SignedInUser, password: string) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password, token: true } })
  return { authorization: `Bearer ${res.json().token as string}` }
}

const kinds = async (user: SignedInUser) => (await app.database.query<{ kind: string }>(
  "select kind from audit_events where user_id = (select id from users where email = $1) and kind in ('apikey.revoke', 'webhook.disable', 'password.reset') order by id",
  [user.email])).map((r) => r.kind)

t.test('a reset through the recovery link revokes every API key and disables every webhook endpoint, and says so', async (t) => {
  const { user, keys, hooks } = await equipped()
  const res = await reset(user)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success', revoked: { apiKeys: 2, webhooks: [{ id: hooks[0], url: HOOK }, { id: hooks[1], url: `${HOOK}/2` }] } })
  for (const key of keys) t.same((await app.inject({ url: '/api/v1/report', headers: key.auth })).json(), UNAUTHORIZED, 'a key made before is refused')
  const auth = await signIn(user, NEW_PASSWORD)
  t.same((await app.inject({ url: '/api/v1/auth/api-keys', headers: auth })).json().items, [], 'none left in the listing')
  const endpoints = await webhooksOf(auth)
  t.equal(endpoints.length, 2, 'the endpoints stay listed')
  t.ok(endpoints.every((e) => e.disabledAt !== null), 'every endpoint disabled')
  const test = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hooks[0]}/test`, headers: auth })
  t.equal(test.statusCode, 409, 'a disabled endpoint is sent nothing, not even a test')
  const [{ n }] = await app.database.query<{ n: number }>(
    "select count(*)::int as n from webhook_deliveries where endpoint_id = any($1::uuid[]) and status = 'pending'", [hooks])
  t.equal(n, 0, 'no delivery waits for them')
  t.same(await kinds(user), ['password.reset', 'apikey.revoke', 'apikey.revoke', 'webhook.disable', 'webhook.disable'],
    'the audit trail: the reset, then a row per key revoked and per endpoint disabled')
  // new keys work again: the cut-off is of what existed
  t.equal((await app.inject({ url: '/api/v1/report', headers: (await issueKey(app, auth)).auth })).statusCode, 200, 'a key made after works')
})

t.test('keepApiKeys: true keeps the keys and the endpoints', async (t) => {
  const { user, keys } = await equipped()
  const res = await reset(user, { keepApiKeys: true })
  t.same(res.json(), { status: 'success', revoked: { apiKeys: 0, webhooks: [] } })
  for (const key of keys) t.equal((await app.inject({ url: '/api/v1/report', headers: key.auth })).statusCode, 200, 'the key still works')
  t.ok((await webhooksOf(await signIn(user, NEW_PASSWORD))).every((e) => e.disabledAt === null), 'the endpoints stay enabled')
  t.same(await kinds(user), ['password.reset'])
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${await recoveryLink(user)}`, payload: { password: NEW_PASSWORD, keepApiKeys: 'yes' } })).statusCode,
    200, 'a form answer for a wrong type')
})

t.test('DELETE /auth/sessions {apiKeys: true} revokes the keys too; without it they stay', async (t) => {
  const { user, keys } = await equipped()
  const plain = await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: user.auth })
  t.same(plain.json(), { status: 'success' })
  t.equal((await app.inject({ url: '/api/v1/report', headers: keys[0].auth })).statusCode, 200, 'sign-out everywhere alone keeps the keys')
  const res = await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: user.auth, payload: { apiKeys: true } })
  t.equal(res.statusCode, 200)
  t.same(res.json().revoked.apiKeys, 2)
  t.equal(res.json().revoked.webhooks.length, 2)
  for (const key of keys) t.same((await app.inject({ url: '/api/v1/report', headers: key.auth })).json(), UNAUTHORIZED)
  t.ok((await webhooksOf(user.auth)).every((e) => e.disabledAt !== null))
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200, 'the session that asked goes on')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: user.auth, payload: { apiKeys: 'all' } })).statusCode, 400)
  t.same(await kinds(user), ['apikey.revoke', 'apikey.revoke', 'webhook.disable', 'webhook.disable'])
})

t.test('a password change made knowing the old password keeps them, and its mail lists them', async (t) => {
  const { user, keys } = await equipped()
  const before = mails.length
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/password', headers: user.auth,
    payload: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD } })
  t.equal(res.json().status, 'success')
  for (const key of keys) t.equal((await app.inject({ url: '/api/v1/report', headers: key.auth })).statusCode, 200)
  const mail = mails.slice(before).find((m) => m.to === user.email && m.subject === 'Security notice: Your password was changed')
  t.ok(mail)
  t.match(mail?.text, `API key "one" (pir_${keys[0].prefix}_…)`)
  t.equal(mail?.text.split('\n').filter((line) => line === '- a webhook endpoint at 127.0.0.1:9').length, 2, 'the endpoints by their host alone')
})
