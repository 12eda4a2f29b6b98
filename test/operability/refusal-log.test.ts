// What the log says about who a request was and what was refused (docs/operations.md, Logs): the
// completed-request line names the user (and the API key) once the request authenticated; a refused
// authorization and a refused limit are lines of their own, with a reason or the limiter's name and
// the kind of key it counts, never an e-mail address, a token or the key counted.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, logCapture, signedInUser, type SignedInUser } from '../helper.ts'
import { FAST_ARGON2 } from '../accounts/support.ts'
import { issueKey } from '../api-keys/support.ts'

type Line = Record<string, unknown>

/** the captured JSON lines, from index `from` on */
function lines (app: FastifyInstance, from = 0): Line[] {
  return (logCapture(app)?.lines ?? []).slice(from).map((l) => JSON.parse(l) as Line)
}
const mark = (app: FastifyInstance) => logCapture(app)?.lines.length ?? 0

/** the lines of the one request sent by `send`: its completed line and its events */
async function linesOf (app: FastifyInstance, send: () => Promise<unknown>) {
  const from = mark(app)
  await send()
  const all = lines(app, from)
  return {
    completed: all.find((l) => l.msg === 'request completed'),
    events: all.filter((l) => typeof l.event === 'string')
  }
}

const noEmail = (t: Test, person: SignedInUser, what: string, found: unknown[]) =>
  t.notOk(found.some((l) => JSON.stringify(l).includes(person.email)), `${what}: no e-mail address`)


t.test('the completed-request line names the user, and the API key of a key request', async (t) => {
  let clock = Date.now()
  const app = await build(t, { ...FAST_ARGON2, LOG_LEVEL: 'info' }, { now: () => clock })
  const person = await signedInUser(app)
  const userId = (await app.inject({ url: '/api/v1/auth/info', headers: person.auth })).json().id as string
  const key = await issueKey(app, person.auth)

  let seen = await linesOf(app, () => app.inject({ url: '/api/v1/report', headers: person.auth }))
  t.match(seen.completed, { res: { statusCode: 200 }, userId }, 'a JWT request: its user')
  t.notOk(seen.completed && 'keyId' in seen.completed, 'no key id')
  noEmail(t, person, 'a JWT request', [seen.completed])

  seen = await linesOf(app, () => app.inject({ url: '/api/v1/report', headers: key.auth }))
  t.match(seen.completed, { res: { statusCode: 200 }, userId, keyId: key.id }, 'a key request: its owner and the key')

  seen = await linesOf(app, () => app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: person.cookie } }))
  t.match(seen.completed, { res: { statusCode: 200 }, userId }, 'a refresh by cookie: its user')

  seen = await linesOf(app, () => app.inject({ url: '/api/v1/auth/info' }))
  t.match(seen.completed, { res: { statusCode: 401 } })
  t.notOk(seen.completed && 'userId' in seen.completed, 'a request that did not authenticate names nobody')

  // authorization refused: a line of its own, with the reason and the route's pattern
  t.same(seen.events.map((e) => [e.event, e.reason, e.status, e.route, e.method]),
    [['authorization refused', 'no credentials', 401, '/api/v1/auth/info', 'GET']], 'no credentials')
  seen = await linesOf(app, () => app.inject({ url: '/api/v1/auth/info', headers: { authorization: 'Bearer not-a-token' } }))
  t.same(seen.events.map((e) => [e.event, e.reason, e.status]), [['authorization refused', 'credentials refused', 401]], 'a token refused')
  t.notOk(JSON.stringify(seen.events).includes('not-a-token'), 'not the token')

  seen = await linesOf(app, () => app.inject({ url: '/api/v1/profiles?q=x', headers: key.auth }))
  t.match(seen.events, [{ event: 'authorization refused', reason: 'key scope', status: 403, route: '/api/v1/profiles', userId, keyId: key.id }],
    'a key outside its scopes: the owner and the key')

  seen = await linesOf(app, () => app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: person.cookie, origin: 'https://elsewhere.example' } }))
  t.match(seen.events, [{ event: 'authorization refused', reason: 'cross-site request', status: 403 }], 'a cross-site cookie call')

  clock += (app.config.stepUpMaxAgeS + 60) * 1000
  seen = await linesOf(app, () => app.inject({ method: 'POST', url: '/api/v1/auth/api-keys', headers: person.auth, payload: { name: 'x', scopes: ['reports:read'] } }))
  t.match(seen.events, [{ event: 'authorization refused', reason: 'fresh proof required', status: 403, route: '/api/v1/auth/api-keys', userId }],
    'a sensitive call without a fresh proof')
  noEmail(t, person, 'the refusals', lines(app))
})

t.test('a refused limit is a line naming the limiter and the kind of key, never the key', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, LOG_LEVEL: 'info', RATE_LIMIT_SIGNIN_EMAIL: '1', RATE_LIMIT_RESEND: '1' })
  const person = await signedInUser(app)
  const userId = (await app.inject({ url: '/api/v1/auth/info', headers: person.auth })).json().id as string
  const wrong = { email: person.email, password: 'not the password' }

  await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: wrong, remoteAddress: '203.0.113.5' })
  let seen = await linesOf(app, () => app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: wrong, remoteAddress: '203.0.113.5' }))
  t.equal(seen.completed?.res && (seen.completed.res as Line).statusCode, 429)
  t.match(seen.events, [{ event: 'rate limit refused', limiter: 'signin-email', keyKind: 'email', route: '/api/v1/auth/signin', method: 'POST' }],
    'the per-address sign-in limit')
  t.type(seen.events[0]?.retryAfterS, 'number', 'with its Retry-After')
  t.notOk(JSON.stringify(seen.events).includes(person.email), 'not the e-mail address it counts')
  t.notOk(JSON.stringify(seen.events).includes('203.0.113.5'), 'nor the client address')

  await app.inject({ method: 'POST', url: '/api/v1/auth/confirm/resend', headers: person.auth })
  seen = await linesOf(app, () => app.inject({ method: 'POST', url: '/api/v1/auth/confirm/resend', headers: person.auth }))
  t.match(seen.events, [{ event: 'rate limit refused', limiter: 'resend', keyKind: 'user', userId }], 'a per-user limit: the user it refused')
})
