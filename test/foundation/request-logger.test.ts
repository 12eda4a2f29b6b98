// src/logger.ts requestLogger: Fastify's per-request logger, made only when a line at an enabled level
// is written. What a request logs must not change: the same lines, each with the request's id, the
// same levels, a route's own logLevel respected, children carrying the bindings.
import t from '../tap.ts'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import pino from 'pino'
import { requestLogger } from '../../src/logger.ts'

function appAt (level: string) {
  const lines: Array<Record<string, unknown>> = []
  // Fastify's own request lines (info) aside: the route's lines are what is looked at
  const stream = new Writable({
    write (chunk, _enc, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>
      if (line.msg !== 'incoming request' && line.msg !== 'request completed') lines.push(line)
      done()
    }
  })
  const logger = pino({ level }, stream)
  // children pino made: none for a request that writes nothing
  const made = { children: 0 }
  // (pino's children inherit this property: each must still make its child from itself)
  const child = logger.child
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) { made.children++; return child.apply(this, args) } as typeof logger.child
  const app = Fastify({ loggerInstance: logger, childLoggerFactory: requestLogger })
  app.get('/quiet', async (request) => {
    request.log.info('not at warn')
    request.log.debug('nor this')
    return { levelSeen: request.log.level, infoEnabled: request.log.isLevelEnabled('info') }
  })
  app.get('/loud', async (request) => {
    request.log.warn({ what: 'w' }, 'a warning')
    request.log.error('an error')
    request.log.child({ part: 'inner' }).warn('from a child')
    return {}
  })
  app.get('/own-level', { logLevel: 'error' }, async (request) => {
    request.log.warn('below the route level')
    request.log.error('at the route level')
    return { levelSeen: request.log.level }
  })
  return { app, lines, made }
}

t.test('at warn, a request that logs nothing at warn writes nothing, and says its level', async (t) => {
  const { app, lines, made } = appAt('warn')
  t.teardown(() => app.close())
  const before = made.children
  const res = await app.inject({ url: '/quiet' })
  t.same(res.json(), { levelSeen: 'warn', infoEnabled: false })
  t.same(lines, [], 'no line')
  t.equal(made.children, before, 'no child logger made for it')
})

t.test('lines at an enabled level carry the request id, children the bindings too', async (t) => {
  const { app, lines } = appAt('warn')
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/loud', headers: { 'x-request-id': 'abc' } })
  t.equal(res.statusCode, 200)
  t.same(lines.map((l) => l.msg), ['a warning', 'an error', 'from a child'])
  const ids = new Set(lines.map((l) => l.reqId))
  t.equal(ids.size, 1, 'one request id on every line')
  t.type([...ids][0], 'string')
  t.equal(lines[0].what, 'w', 'merged object kept')
  t.equal(lines[2].part, 'inner', "the child's bindings")
  t.equal(lines[1].level, 50, 'error level')
})

t.test("a route's own logLevel applies to its requests", async (t) => {
  const { app, lines } = appAt('info')
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/own-level' })
  t.same(res.json(), { levelSeen: 'error' })
  t.same(lines.map((l) => l.msg), ['at the route level'])
})

t.test('at info, info lines are written', async (t) => {
  const { app, lines } = appAt('info')
  t.teardown(() => app.close())
  await app.inject({ url: '/quiet' })
  t.same(lines.map((l) => l.msg), ['not at warn'])
  t.type(lines[0].reqId, 'string')
})
