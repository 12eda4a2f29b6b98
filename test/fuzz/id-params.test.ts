// Ids in other spellings: every operation of the OpenAPI document that takes an id (a path
// parameter named ...id, or any parameter declared `format: uuid`) gets an existing id (a session's,
// an API key's, a webhook's) as `urn:uuid:`, in braces, uppercase, without hyphens, with spaces or
// a NUL around it. The database reads some of these
// spellings and refuses others, the in-memory views know only the printed form: none of them may be a
// 500, and none may reach the resource the plain id names. A path id answers 404 to each on every
// route, as an id that names nothing; a query parameter the document declares `format: uuid` answers
// 400 (docs/decisions/programs.md, HTTP hardening).
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { issueKey } from '../api-keys/support.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { contractViolation } from './support.ts'

interface Parameter { name: string, in: string, schema?: { format?: string } }
interface Operation { parameters?: Parameter[] }

const spellings = (id: string): string[] => [
  `urn:uuid:${id}`,
  `URN:UUID:${id}`,
  `{${id}}`,
  id.toUpperCase(),
  id.replace(/-/g, ''),
  ` ${id}`,
  `${id} `,
  `${id}\n`,
  `${id}\u0000`,
  `${id}0`,
  id.slice(1)
]

t.test('ids in other spellings: never a 500, never the resource, 404 for a path id on every route, 400 for a uuid query parameter', async (t) => {
  const app = await build(t, { RATE_LIMIT_GLOBAL: '100000', LOG_LEVEL: 'info' })
  const a = await signedInUser(app)
  const key = await issueKey(app, a.auth)
  const receiver = await startReceiver(t)
  const hook = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: a.auth, payload: { url: `${receiver.url}/hook`, events: ['report.ready'] } })
  t.equal(hook.statusCode, 201, 'a webhook to name')
  const sessions = await app.inject({ url: '/api/v1/auth/sessions', headers: a.auth })
  const sessionId = sessions.json().items[0].id as string
  // the existing resource a path names: a key, a webhook, else the session (a report id for the others)
  const idFor = (path: string) => path.startsWith('/api/v1/auth/api-keys') ? key.id : path.startsWith('/api/v1/webhooks') ? hook.json().id as string : sessionId

  const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> }
  let sent = 0
  let uuidParams = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const params = (op.parameters ?? []).filter((p) => (p.in === 'path' && /id$/i.test(p.name)) || p.schema?.format === 'uuid')
      if (params.length === 0) continue
      const declared = params.some((p) => p.schema?.format === 'uuid')
      if (declared) uuidParams++
      for (const spelling of spellings(idFor(path))) {
        let url = path
        const query: string[] = []
        for (const p of params) {
          if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(spelling))
          else query.push(`${p.name}=${encodeURIComponent(spelling)}`)
        }
        if (query.length) url += `?${query.join('&')}`
        const res = await app.inject({ method: method.toUpperCase() as 'GET', url, headers: a.auth })
        sent++
        const what = `${method.toUpperCase()} ${path} with ${JSON.stringify(spelling)}`
        t.equal(contractViolation(res, method.toUpperCase(), ['service unavailable']), null, `${what}: ${res.statusCode} in the documented shape`)
        const refused = (res.statusCode >= 400 && res.statusCode < 500) || (res.statusCode === 200 && res.json().status === 'error')
        t.ok(refused, `${what}: refused (${res.statusCode} ${res.body.slice(0, 120)})`)
        if (params.some((p) => p.in === 'path')) {
          t.equal(res.statusCode, 404, `${what}: 404, a path id that names nothing`)
          t.notMatch(res.json().message, /\^|\[0-9a-f\]/, `${what}: the message quotes no regular expression`)
        } else if (declared) t.equal(res.statusCode, 400, `${what}: 400, the parameter is not a UUID as the service prints one`)
      }
    }
  }
  t.ok(uuidParams >= 2, `${uuidParams} operations declare a uuid parameter (session and API key at least)`)
  t.ok(sent > 50, `${sent} requests`)

  // the plain ids still name their resources: nothing above reached them
  const after = await app.inject({ url: '/api/v1/auth/sessions', headers: a.auth })
  t.same(after.json().items.map((s: { id: string }) => s.id), [sessionId], 'the session is live')
  const keys = await app.inject({ url: '/api/v1/auth/api-keys', headers: a.auth })
  t.same(keys.json().items.map((k: { id: string }) => k.id), [key.id], 'the key is not revoked')
  const hooks = await app.inject({ url: '/api/v1/webhooks', headers: a.auth })
  t.same(hooks.json().items.map((h: { id: string }) => h.id), [hook.json().id], 'the webhook is there')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/api-keys/${key.id}`, headers: a.auth })).statusCode, 204, 'the plain id revokes the key')
})
