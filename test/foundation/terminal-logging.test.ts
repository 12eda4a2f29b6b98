// src/logger.ts terminalLogging: when a person reads the server's output (a terminal, not production)
// each request is one line, pretty-printed when pino-pretty is installed; anywhere else the app keeps
// its JSON lines, "incoming request" and "request completed" both.
import t from '../tap.ts'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import pino from 'pino'
import { OneLineRequests, terminalLogging } from '../../src/logger.ts'

t.test('production, a pipe or a file: the app keeps its JSON logging', async (t) => {
  t.same(terminalLogging({ level: 'info', production: true, isTTY: true }), {}, 'production on a terminal')
  t.same(terminalLogging({ level: 'info', production: false, isTTY: false }), {}, 'development into a pipe')
  t.same(terminalLogging({ level: 'info', production: false, isTTY: undefined }), {}, 'development into a file')
})

t.test('a terminal in development: one line per request, pretty when pino-pretty is installed', async (t) => {
  const plain = terminalLogging({ level: 'debug', production: false, isTTY: true, prettyInstalled: false })
  t.ok(plain.logController instanceof OneLineRequests)
  const plainLogger = plain.logger as { level: string, transport?: unknown, redact?: unknown }
  t.equal(plainLogger.level, 'debug')
  t.equal(plainLogger.transport, undefined, 'JSON lines without pino-pretty')
  t.ok(plainLogger.redact, 'the same redaction')

  const pretty = terminalLogging({ level: 'info', production: false, isTTY: true, prettyInstalled: true })
  const prettyLogger = pretty.logger as { transport?: { target: string } }
  t.equal(prettyLogger.transport?.target, 'pino-pretty')
  t.ok(pretty.logController instanceof OneLineRequests)

  t.same(terminalLogging({ level: 'silent', production: false, isTTY: true, prettyInstalled: true }).logger, false, 'silent stays silent')
})

t.test('OneLineRequests writes one line per request, its URL redacted', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)
      done()
    }
  })
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, stream), logController: new OneLineRequests() })
  app.get('/ok', async () => ({ ok: true }))
  app.get('/auth/recovery/*', async () => ({ ok: true }))
  app.get('/fails', async () => { throw new Error('boom') })
  t.teardown(() => app.close())

  await app.inject('/ok')
  await app.inject('/auth/recovery/s3cr3t-link?x=1')
  await app.inject('/fails')
  const requestLines = lines.filter((l) => typeof l.reqId === 'string' && typeof l.responseTime === 'number')
  t.equal(requestLines.length, 3, 'one line for each of three requests')
  t.match(requestLines[0].msg, /^GET \/ok 200 \d+\.\d ms$/)
  t.match(requestLines[1].msg, /^GET \/auth\/recovery\/\[redacted\]\?x=\[redacted\] 200 /)
  t.notOk(lines.some((l) => JSON.stringify(l).includes('s3cr3t')), 'the link secret is in no line')
  t.notOk(lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed'), 'no line of Fastify\'s own pair')
  t.match(lines.find((l) => String(l.msg).startsWith('GET /fails 500')), { level: 30 }, 'a handled 500 is answered, its line at info')
})
