// The suite-wide response check (test/response-check.ts, applied by build() to every app and by
// startServer() to every server process): it lets a response that matches the document through and
// catches one that does not, with a message naming the request, the status and Ajv's errors.
import t from '../tap.ts'
import Fastify, { type FastifySchema } from 'fastify'
import swagger from '@fastify/swagger'
import {
  checkResponse, checkResponsesIn, checkResponsesOf, checkServerResponse, validatedOperations, type OpenApiDocument, type SeenResponse
} from '../response-check.ts'

const API = '/api/v1'
const json = 'application/json; charset=utf-8'
const error = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } }
const doc: OpenApiDocument = {
  paths: {
    [`${API}/thing/{id}`]: {
      get: {
        responses: {
          200: { content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } } },
          204: {},
          404: { content: { 'application/json': { schema: error } } }
        }
      }
    },
    [`${API}/thing/new`]: { get: { responses: { 201: { content: { 'application/json': { schema: { type: 'object' } } } } } } },
    [`${API}/stream`]: { get: { responses: { 200: { content: { 'text/event-stream': { schema: { type: 'string' } } } } } } }
  }
}
const seen = (r: Partial<SeenResponse>): SeenResponse => ({ method: 'GET', url: `${API}/thing/1`, statusCode: 200, contentType: json, body: '{"n":1}', ...r })
const problem = (r: Partial<SeenResponse>) => checkResponse(doc, seen(r)).problem?.message

t.test('the verdict on single responses', async (t) => {
  t.same(checkResponse(doc, seen({})), { operation: `GET ${API}/thing/{id} 200`, problem: undefined }, 'a matching body')
  const bad = checkResponse(doc, seen({ body: '{"n":"one"}' }))
  t.match(bad.problem?.message, /GET \/api\/v1\/thing\/1 -> 200 .*does not match the documented schema/)
  t.match(bad.problem?.errors, [{ instancePath: '/n', keyword: 'type' }], 'with Ajv\'s errors')
  t.match(problem({ body: 'nope' }), /not JSON/)
  t.match(problem({ statusCode: 500, body: '{"code":500,"message":"internal error"}' }), /status 500 is not documented .*documented: 200, 204, 404/)
  t.match(problem({ contentType: 'text/html' }), /content type text\/html is not documented/)
  t.equal(problem({ statusCode: 204, contentType: undefined, body: '' }), undefined, 'a documented empty answer')
  t.match(problem({ statusCode: 204, body: '{}' }), /no body in the document/)
  t.equal(problem({ method: 'HEAD', body: '' }), undefined, 'HEAD: the GET\'s status and media type, no body')
  t.same(checkResponse(doc, seen({ url: `${API}/thing/new`, statusCode: 201, body: '{}' })).operation, `GET ${API}/thing/new 201`, 'a static segment wins over a parameter')
  t.equal(problem({ url: `${API}/stream`, contentType: 'text/event-stream', body: 'retry: 3000\n\n' }), undefined, 'an event stream: its media type, not its bytes')

  // what the app's router says: the stream opts out of HEAD, /thing/new also answers at /thing/new/
  const routes = new Set(['GET /api/v1/thing/:id', 'HEAD /api/v1/thing/:id', 'GET /api/v1/stream', 'GET /api/v1/thing/new/'])
  const hasRoute = (method: string, url: string) => routes.has(`${method} ${url}`)
  const routed = (r: Partial<SeenResponse>) => checkResponse(doc, seen(r), hasRoute)
  t.same(routed({ method: 'HEAD', body: '' }), { operation: `GET ${API}/thing/{id} 200` }, 'HEAD of a GET route that has one')
  const headless = routed({ method: 'HEAD', url: `${API}/stream`, statusCode: 404, body: '' })
  t.same(headless, { problem: undefined }, 'HEAD of a route without one is an unknown route: its 404 is not the GET\'s')
  t.match(routed({ method: 'HEAD', url: `${API}/stream`, contentType: 'text/event-stream', body: '' }).problem?.message, /HEAD \/api\/v1\/stream is not in the document/)
  t.same(routed({ url: `${API}/thing/new/`, statusCode: 201, body: '{}' }).operation, `GET ${API}/thing/new 201`, 'a root route\'s trailing slash')

  // outside the document
  t.equal(problem({ url: `${API}/nowhere`, statusCode: 404, body: '{"code":404,"message":"not found"}' }), undefined, 'the not-found answer')
  t.match(problem({ url: `${API}/nowhere`, statusCode: 404, body: '{"error":"Not Found"}' }), /GeneralError shape/)
  t.match(problem({ method: 'POST', statusCode: 200 }), /POST \/api\/v1\/thing\/1 is not in the document/)
  t.equal(problem({ url: '/app.js', contentType: 'text/javascript', body: 'x' }), undefined, 'the dashboard is exempt')
  t.equal(problem({ url: `${API}/docs/static/index.html`, contentType: 'text/html', body: '<html>' }), undefined, 'the docs UI is exempt')
  t.equal(problem({ method: 'OPTIONS', statusCode: 204, body: '' }), undefined, 'a CORS preflight is exempt')
})

t.test('an app whose route sends what its schema does not say fails the test that received it', async (t) => {
  const app = Fastify()
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } })
  const schema: FastifySchema = { response: { 200: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } }
  app.get(`${API}/good`, { schema }, async () => ({ n: 1 }))
  // a string is sent as it is: the response schema never sees it
  app.get(`${API}/bad`, { schema }, async (_request, reply) => reply.type(json).send('{"n":"one"}'))
  app.get(`${API}/teapot`, { schema }, async (_request, reply) => reply.code(418).send({ n: 1 }))
  await app.ready()
  t.teardown(() => app.close())

  const failures: Array<{ message: string, extra: Record<string, unknown> }> = []
  checkResponsesIn({ teardown: (fn) => t.teardown(fn), fail: (message, extra) => { failures.push({ message, extra }) } }, app)

  t.equal((await app.inject({ url: `${API}/good` })).statusCode, 200)
  t.same(failures, [], 'a matching response passes')
  t.ok(validatedOperations(app).has(`GET ${API}/good 200`), 'and is counted as validated')

  await app.inject({ url: `${API}/bad` })
  t.equal(failures.length, 1)
  t.match(failures[0].message, `GET ${API}/bad -> 200 (GET ${API}/bad): the body does not match the documented schema`)
  t.match(failures[0].extra, { errors: [{ instancePath: '/n', message: 'must be integer' }], body: '{"n":"one"}' })

  await app.inject({ method: 'HEAD', url: `${API}/teapot` })
  t.match(failures[1]?.message, `HEAD ${API}/teapot -> 418: status 418 is not documented for GET ${API}/teapot`)
})

t.test('a server process\'s answers are checked against the document it serves', async (t) => {
  // what test/peers/server-process.ts does with a real one: read its document, then check what call() gets
  const app = Fastify()
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } })
  app.get(`${API}/openapi.json`, { schema: { hide: true } }, async () => app.swagger())
  app.get(`${API}/good`, { schema: { response: { 200: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } } }, async () => ({ n: 1 }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())

  const failures: string[] = []
  await checkResponsesOf({ teardown: (fn) => t.teardown(fn), fail: (message) => { failures.push(message) } }, base)
  checkServerResponse(base, { method: 'GET', url: `${API}/good`, statusCode: 200, contentType: json, body: '{"n":1}' })
  t.same(failures, [], 'a matching answer passes')
  checkServerResponse(base, { method: 'GET', url: `${API}/good`, statusCode: 503, contentType: json, body: '{"code":503,"message":"service unavailable"}' })
  t.match(failures, [`GET ${API}/good -> 503: status 503 is not documented for GET ${API}/good`])
  await t.rejects(checkResponsesOf({ teardown: () => {} }, `${base}/nowhere`), /openapi\.json answered 404/, 'a server without its document is an error, not an unchecked server')
})
