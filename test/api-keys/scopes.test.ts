// What a key may call (src/plugins/api-keys.ts, the routes' config.apiKeyScope): reports:read,
// reports:write and profiles:read each open their routes, where the key acts as its owner (the same
// answer as the owner's JWT, the owner's credits spent); every other scope, and every route that names
// none, is 403. A key's stream (GET /sse/{id}) works with reports:read and ends when the key is revoked.
import t from '../tap.ts'
import { build, CHEAP_ARGON2, signedInUser } from '../helper.ts'
import { readyReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { closeApp, listen, parseEvents, rawStream } from '../streams/client.ts'
import { FORBIDDEN, issueKey } from './support.ts'

const app = await build(t, { ...CHEAP_ARGON2, WORKERS: '1', SIGNUP_FREE_REPORTS: '10' })
await seedReportData(app.db)
const base = await listen(app)
t.teardown(() => closeApp(app))

const owner = await signedInUser(app)
const reportId = await readyReport(app, owner.auth)
const friends = await app.inject({ url: `/api/v1/report/${reportId}/friends?source=ig&limit=1`, headers: owner.auth })
const friendId = (friends.json().items[0]?.id as string | undefined) ?? 'nobody'
const ALL = ['reports:read', 'reports:write', 'profiles:read', 'webhooks', 'alerts']
const keyOf = new Map<string, Awaited<ReturnType<typeof issueKey>>>()
for (const scope of ALL) keyOf.set(scope, await issueKey(app, owner.auth, { name: scope, scopes: [scope] }))

const READS: Array<[string, string]> = [
  ['reports:read', '/api/v1/report'],
  ['reports:read', `/api/v1/report/${reportId}`],
  ['reports:read', `/api/v1/report/${reportId}/interests?source=ig`],
  ['reports:read', `/api/v1/report/${reportId}/friends?source=ig&limit=2`],
  ['reports:read', `/api/v1/report/${reportId}/friends/${encodeURIComponent(friendId)}?source=ig`],
  ['reports:read', `/api/v1/report/${reportId}/diffs?source=ig`],
  ['reports:read', `/api/v1/report/${reportId}/export`],
  ['reports:read', `/api/v1/report/${reportId}/export?format=csv`],
  ['reports:read', `/api/v1/report/${reportId}/export.csv`],
  ['profiles:read', '/api/v1/profiles?q=jdoe']
]

t.test('each read: the scope\'s key gets the owner\'s own answer; every other scope 403', async (t) => {
  for (const [scope, url] of READS) {
    const mine = await app.inject({ url, headers: owner.auth })
    const res = await app.inject({ url, headers: keyOf.get(scope)!.auth })
    t.equal(res.statusCode, mine.statusCode, `${url} with ${scope}: ${mine.statusCode}`)
    t.equal(res.body, mine.body, `${url}: the owner's answer`)
    for (const other of ALL.filter((s) => s !== scope)) {
      const refused = await app.inject({ url, headers: keyOf.get(other)!.auth })
      t.equal(refused.statusCode, 403, `${url} with ${other}`)
      t.same(refused.json(), FORBIDDEN)
    }
  }
})

t.test('reports:write: create, generate (the owner\'s credit), delete; reads and other scopes refused', async (t) => {
  const write = keyOf.get('reports:write')!
  const credits = async () => (await app.inject({ url: '/api/v1/auth/info', headers: owner.auth })).json().reportCredits as number
  const before = await credits()
  for (const other of ALL.filter((s) => s !== 'reports:write')) {
    const refused = await app.inject({ method: 'POST', url: '/api/v1/report', headers: keyOf.get(other)!.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
    t.same([refused.statusCode, refused.json()], [403, FORBIDDEN], `POST /report with ${other}`)
  }
  const created = await app.inject({ method: 'POST', url: '/api/v1/report', headers: write.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  t.equal(created.statusCode, 201)
  const id = created.json().id as string
  t.equal((await app.inject({ url: `/api/v1/report/${id}`, headers: owner.auth })).statusCode, 200, 'the report is the owner\'s')
  t.equal((await app.inject({ url: `/api/v1/report/${id}`, headers: write.auth })).statusCode, 403, 'reading needs reports:read')
  const refusedGen = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: keyOf.get('reports:read')!.auth })
  t.equal(refusedGen.statusCode, 403, 'generate with reports:read')
  const gen = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: write.auth })
  t.equal(gen.statusCode, 202)
  t.equal(await credits(), before - 1, 'the owner\'s credit was spent')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/report/${id}`, headers: keyOf.get('reports:read')!.auth })).statusCode, 403)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/report/${id}`, headers: write.auth })).statusCode, 204)
  t.equal((await app.inject({ url: `/api/v1/report/${id}`, headers: owner.auth })).statusCode, 404, 'deleted')
})

t.test('another user\'s report is 403 for a key as for its owner', async (t) => {
  const other = await signedInUser(app)
  const url = `/api/v1/report/${reportId}`
  const res = await app.inject({ url, headers: (await issueKey(app, other.auth)).auth })
  t.same([res.statusCode, res.json()], [403, FORBIDDEN])
})

t.test('GET /sse/{id}: a key with reports:read streams; without it 403; revoking the key ends its stream', async (t) => {
  const refused = await app.inject({ url: `/api/v1/sse/${reportId}`, headers: { accept: 'text/event-stream', ...keyOf.get('reports:write')!.auth } })
  t.same([refused.statusCode, refused.json()], [403, FORBIDDEN])

  const key = await issueKey(app, owner.auth, { name: 'stream reader' })
  const draft = await app.inject({ method: 'POST', url: '/api/v1/report', headers: owner.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  const id = draft.json().id as string
  const stream = await rawStream(`${base}/api/v1/sse/${id}`, key.auth)
  t.teardown(() => stream.abort())
  t.equal(stream.status, 200)
  t.equal(stream.headers['content-type'], 'text/event-stream')
  t.equal(stream.headers['ratelimit-limit'], String(app.config.rateLimits.apiKey), 'the stream\'s head carries the key\'s budget')
  await stream.waitForText((x) => x.includes('event: status'), 'the current state')

  const kept = await rawStream(`${base}/api/v1/sse/${id}`, owner.auth)
  t.teardown(() => kept.abort())
  await kept.waitForText((x) => x.includes('event: status'), 'the owner\'s stream')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/api-keys/${key.id}`, headers: owner.auth })).statusCode, 204)
  await stream.waitForEnd(1000)
  t.same(parseEvents(stream.text()).at(-1), { id: undefined, event: 'end', data: { reason: 'session-ended' } }, 'ended as a session\'s stream')
  t.notOk(kept.ended(), 'the owner\'s own stream stays')
})
