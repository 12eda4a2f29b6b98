// POST, GET and DELETE /auth/api-keys (src/routes/api-keys, src/services/api-keys): a key is shown
// once and only its SHA-256 is stored; listings never hold it; revocation is refused for anyone
// else's key; at most 20 live keys a user (409); expiry; the body's checks; these routes and the rest
// of /auth/* take a person's JWT, never a key (403); deleting the account deletes its keys.
import { createHash } from 'node:crypto'
import t from '../tap.ts'
import { build, CHEAP_ARGON2, GOOD_PASSWORD, signedInUser } from '../helper.ts'
import { FORBIDDEN, issueKey, UNAUTHORIZED } from './support.ts'

const ENV = { ...CHEAP_ARGON2, RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000' }
const app = await build(t, ENV)
const KEYS = '/api/v1/auth/api-keys'
const KEY_FORM = /^pir_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/
const reports = (auth: Record<string, string>) => app.inject({ url: '/api/v1/report', headers: auth })

t.test('issue: 201 with the key once, right after sign-in; the row holds its hash, never the key', async (t) => {
  const user = await signedInUser(app)
  const res = await app.inject({ method: 'POST', url: KEYS, headers: user.auth, payload: { name: 'nightly export', scopes: ['reports:read', 'profiles:read'] } })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'name', 'prefix', 'scopes'])
  t.match(body, { name: 'nightly export', scopes: ['reports:read', 'profiles:read'], expiresAt: null })
  const m = KEY_FORM.exec(body.key)
  t.ok(m, 'pir_<prefix>_<secret>')
  t.equal(m![1], body.prefix, 'the prefix is the key\'s')
  t.equal(Buffer.from(m![2], 'base64url').length, 32, '32 random bytes')

  const [row] = await app.database.query<Record<string, unknown>>('select * from api_keys where id = $1', [body.id])
  t.equal(row.hash, createHash('sha256').update(m![2]).digest('hex'), 'SHA-256 of the secret is stored')
  t.notOk(JSON.stringify(row).includes(m![2]), 'the secret itself is nowhere in the row')
  t.equal((await reports({ authorization: `Bearer ${body.key}` })).statusCode, 200, 'the key works')
})

t.test('list: the user\'s keys, newest first, never the key; lastUsedAt once used', async (t) => {
  const user = await signedInUser(app)
  const first = await issueKey(app, user.auth, { name: 'first' })
  const second = await issueKey(app, user.auth, { name: 'second', scopes: ['reports:write'], expiresInDays: 30 })
  t.equal((await reports(first.auth)).statusCode, 200)
  await app.services.apiKeys.settled()
  const res = await app.inject({ url: KEYS, headers: user.auth })
  t.equal(res.statusCode, 200)
  const { items } = res.json()
  t.same(items.map((k: { name: string }) => k.name), ['second', 'first'])
  t.same(Object.keys(items[0]).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes'])
  t.notOk(res.body.includes(first.key) || res.body.includes(second.key), 'no key in the listing')
  t.match(items[0], { id: second.id, prefix: second.prefix, scopes: ['reports:write'], lastUsedAt: null })
  t.ok(items[1].lastUsedAt, 'the used key has a lastUsedAt')
  const other = await signedInUser(app)
  t.same((await app.inject({ url: KEYS, headers: other.auth })).json(), { items: [] }, 'another user sees none of them')
})

t.test('revoke: 204, then the key is refused (401) and gone from the listing; 404 for anyone else\'s or twice', async (t) => {
  const user = await signedInUser(app)
  const other = await signedInUser(app)
  const key = await issueKey(app, user.auth)
  t.equal((await reports(key.auth)).statusCode, 200)
  const theirs = await app.inject({ method: 'DELETE', url: `${KEYS}/${key.id}`, headers: other.auth })
  t.equal(theirs.statusCode, 404)
  t.has(theirs.json(), { code: 404, message: 'API key not found' })
  t.equal((await reports(key.auth)).statusCode, 200, 'another user\'s attempt changes nothing')

  const res = await app.inject({ method: 'DELETE', url: `${KEYS}/${key.id}`, headers: user.auth })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  const refused = await reports(key.auth)
  t.equal(refused.statusCode, 401)
  t.has(refused.json(), UNAUTHORIZED)
  t.same((await app.inject({ url: KEYS, headers: user.auth })).json(), { items: [] })
  t.equal((await app.inject({ method: 'DELETE', url: `${KEYS}/${key.id}`, headers: user.auth })).statusCode, 404, 'twice: 404')
  t.equal((await app.inject({ method: 'DELETE', url: `${KEYS}/not-a-uuid`, headers: user.auth })).statusCode, 404, 'a malformed id names nothing: 404')
})

t.test('at most 20 live keys a user: the 21st is 409; a revoked or expired one frees a place', async (t) => {
  const user = await signedInUser(app)
  const keys = []
  for (let i = 0; i < 20; i++) keys.push(await issueKey(app, user.auth, { name: `k${i}` }))
  const res = await app.inject({ method: 'POST', url: KEYS, headers: user.auth, payload: { name: 'one too many', scopes: ['reports:read'] } })
  t.equal(res.statusCode, 409)
  t.has(res.json(), { code: 409, message: 'at most 20 live API keys per user' })
  t.equal((await app.inject({ method: 'DELETE', url: `${KEYS}/${keys[0].id}`, headers: user.auth })).statusCode, 204)
  await issueKey(app, user.auth, { name: 'after a revocation' })
  t.equal((await app.inject({ method: 'POST', url: KEYS, headers: user.auth, payload: { name: 'x', scopes: ['reports:read'] } })).statusCode, 409)
  await app.database.query("update api_keys set expires_at = now() - interval '1 second' where id = $1", [keys[1].id])
  await issueKey(app, user.auth, { name: 'after an expiry' })
  const other = await signedInUser(app)
  await issueKey(app, other.auth, { name: 'the limit is per user' })
})

t.test('expiry: expiresInDays sets expiresAt; an expired key is refused (401), cached or not', async (t) => {
  const user = await signedInUser(app)
  const before = Date.now()
  const key = await issueKey(app, user.auth, { expiresInDays: 3 })
  const expiresAt = Date.parse(key.body.expiresAt as string)
  t.ok(expiresAt >= before + 3 * 86_400_000 && expiresAt <= Date.now() + 3 * 86_400_000, 'three days on')
  t.equal((await reports(key.auth)).statusCode, 200)

  const unseen = await issueKey(app, user.auth, { expiresInDays: 1 })
  await app.database.query("update api_keys set expires_at = now() - interval '1 second' where id = $1", [unseen.id])
  t.has((await reports(unseen.auth)).json(), UNAUTHORIZED, 'expired when first read')

  // a key in the view expires by the app's clock, without a read
  let offset = 0
  const clocked = await build(t, ENV, { database: app.database, now: () => Date.now() + offset })
  const owner = await signedInUser(clocked)
  const soon = await issueKey(clocked, owner.auth, { expiresInDays: 1 })
  t.equal((await clocked.inject({ url: '/api/v1/report', headers: soon.auth })).statusCode, 200)
  offset = 86_400_000 + 1000
  t.has((await clocked.inject({ url: '/api/v1/report', headers: soon.auth })).json(), UNAUTHORIZED, 'expired in the view')
})

t.test('the body is checked: 400 for a bad name, scopes or expiry', async (t) => {
  const user = await signedInUser(app)
  const cases: Array<[string, unknown]> = [
    ['no name', { scopes: ['reports:read'] }],
    ['an empty name', { name: '', scopes: ['reports:read'] }],
    ['a name of 101 characters', { name: 'x'.repeat(101), scopes: ['reports:read'] }],
    ['no scopes', { name: 'k' }],
    ['empty scopes', { name: 'k', scopes: [] }],
    ['an unknown scope', { name: 'k', scopes: ['reports:admin'] }],
    ['a scope twice', { name: 'k', scopes: ['reports:read', 'reports:read'] }],
    ['zero days', { name: 'k', scopes: ['reports:read'], expiresInDays: 0 }],
    ['3651 days', { name: 'k', scopes: ['reports:read'], expiresInDays: 3651 }],
    ['days not whole', { name: 'k', scopes: ['reports:read'], expiresInDays: 1.5 }],
    ['another field', { name: 'k', scopes: ['reports:read'], owner: 'someone' }]
  ]
  for (const [what, payload] of cases) {
    const res = await app.inject({ method: 'POST', url: KEYS, headers: user.auth, payload: payload as object })
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().code, 400, `${what}: GeneralError`)
  }
  t.same((await app.inject({ url: KEYS, headers: user.auth })).json(), { items: [] }, 'nothing was issued')
  const edge = await issueKey(app, user.auth, { name: 'x'.repeat(100), scopes: ['reports:read', 'reports:write', 'profiles:read', 'webhooks', 'alerts'], expiresInDays: 3650 })
  t.equal(edge.body.scopes && (edge.body.scopes as string[]).length, 5, 'every scope, the longest name, the longest expiry')
})

t.test('without a person\'s JWT: 401; with a key, /auth/* and billing answer 403', async (t) => {
  const user = await signedInUser(app)
  const key = await issueKey(app, user.auth, { scopes: ['reports:read', 'reports:write', 'profiles:read', 'webhooks', 'alerts'] })
  t.equal((await app.inject({ url: KEYS })).statusCode, 401)
  const cases: Array<[string, string, unknown?]> = [
    ['GET', KEYS],
    ['POST', KEYS, { name: 'made by a key', scopes: ['reports:read'] }],
    ['DELETE', `${KEYS}/${key.id}`],
    ['GET', '/api/v1/auth/info'],
    ['GET', '/api/v1/auth/sessions'],
    ['DELETE', '/api/v1/auth/sessions'],
    ['POST', '/api/v1/auth/password', { currentPassword: GOOD_PASSWORD, newPassword: 'another correct horse battery' }],
    ['DELETE', '/api/v1/auth/account', { password: GOOD_PASSWORD }],
    ['POST', '/api/v1/auth/signout'],
    ['DELETE', '/api/v1/auth/idp'],
    ['POST', '/api/v1/auth/confirm/resend'],
    ['POST', '/api/v1/billing/promocode', { promocode: 'NOPE' }]
  ]
  for (const [method, url, payload] of cases) {
    const res = await app.inject({ method: method as 'GET', url, headers: key.auth, ...(payload ? { payload: payload as object } : {}) })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.has(res.json(), FORBIDDEN, `${method} ${url}: access denied`)
  }
  t.equal((await reports(key.auth)).statusCode, 200, 'the key still works: nothing above touched it')
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200, 'the person\'s JWT is unchanged')
  t.equal((await app.inject({ url: KEYS, headers: user.auth })).json().items.length, 1)
})

t.test('deleting the account deletes its keys: refused at once', async (t) => {
  const user = await signedInUser(app)
  const key = await issueKey(app, user.auth)
  t.equal((await reports(key.auth)).statusCode, 200)
  const res = await app.inject({ method: 'DELETE', url: '/api/v1/auth/account', headers: user.auth, payload: { password: GOOD_PASSWORD } })
  t.equal(res.statusCode, 204)
  t.same(await app.database.query('select 1 from api_keys where id = $1', [key.id]), [], 'the row is gone')
  t.has((await reports(key.auth)).json(), UNAUTHORIZED)
})

t.test('a key that is not one: 401 as a bad JWT, with no key budget', async (t) => {
  const user = await signedInUser(app)
  const key = await issueKey(app, user.auth)
  const wrongSecret = key.key.slice(0, -4) + (key.key.endsWith('AAAA') ? 'BBBB' : 'AAAA')
  for (const [what, token] of [['a wrong secret', wrongSecret], ['an unknown prefix', 'pir_000000000000_' + 'A'.repeat(43)], ['malformed', 'pir_nope'], ['the prefix alone', `pir_${key.prefix}`]]) {
    const res = await reports({ authorization: `Bearer ${token}` })
    t.equal(res.statusCode, 401, what)
    t.has(res.json(), UNAUTHORIZED, what)
    t.notOk(res.headers['ratelimit-limit'], `${what}: no key budget`)
  }
})
