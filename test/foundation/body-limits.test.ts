// A body over the limit, over a real listener and a raw socket (src/plugins/body-limits.ts): with
// `Expect: 100-continue` and a Content-Length over the limit the answer is 413 and no 100; a body
// that grows past the limit while the client is still sending gets a whole 413 that the client reads
// after it has sent everything, not a reset. On HTTPS with HTTP/2 and HTTP/1.1 (the server's own
// listener) and on plain HTTP (TLS=off behind a proxy).
import t, { type Test } from '../tap.ts'
import { mkdtempSync } from 'node:fs'
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'
import { loadTls } from '../../src/tls.ts'

const MiB = 1024 * 1024
const CHUNK = 64 * 1024
const TRIES = 20
const INGEST_TOKEN = 'ingest-token-body-limits-0123456789'
const env = { RATE_LIMIT_SIGNIN_IP: '100000', RATE_LIMIT_GLOBAL: '100000', LOG_LEVEL: 'warn', INGEST_TOKEN, INGEST_BODY_LIMIT: String(4 * MiB) }

type Open = () => Socket

/** what the server sent until it closed the connection */
function exchange (open: Open, send: (socket: Socket) => void): Promise<{ text: string, error?: string }> {
  return new Promise((resolve) => {
    const socket = open()
    const chunks: Buffer[] = []
    let error: string | undefined
    socket.on('data', (d: Buffer) => chunks.push(d))
    socket.on('error', (err: NodeJS.ErrnoException) => { error = err.code ?? err.message })
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error }))
    socket.once(socket.constructor.name === 'TLSSocket' ? 'secureConnect' : 'connect', () => send(socket))
  })
}

/** the answers in a response stream: each status line's code, and the last answer's headers and body */
function answers (text: string) {
  const statuses = [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]))
  const last = text.lastIndexOf('HTTP/1.1 ')
  const [head, body = ''] = text.slice(last).split('\r\n\r\n')
  const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { statuses, headers, body }
}

const head = (path: string, extra: string, type = 'application/json') =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\n${extra}\r\n`

async function bodyLimits (t: Test, app: FastifyInstance, open: Open) {
  const tooLarge = { code: 413, message: 'body too large', reason: 'body_too_large' }

  await t.test('Expect: 100-continue with a Content-Length over the limit: 413, no 100', async (t) => {
    for (const [path, length] of [['/api/v1/auth/signin', 2 * MiB], ['/api/v1/ingest', 5 * MiB]] as const) {
      const ingest = path === '/api/v1/ingest'
      const auth = ingest ? `Authorization: Bearer ${INGEST_TOKEN}\r\n` : ''
      const { text } = await exchange(open, (s) => s.write(head(path, `${auth}Content-Length: ${length}\r\nExpect: 100-continue\r\n`, ingest ? 'application/x-ndjson' : undefined)))
      const { statuses, headers, body } = answers(text)
      t.same(statuses, [413], `${path}, ${length} bytes: one answer, 413, without 100 Continue`)
      t.equal(headers.connection, 'close', 'the connection ends with it')
      t.has(JSON.parse(body), tooLarge)
    }
  })

  await t.test('Expect: 100-continue within the limit: 100, then the answer', async (t) => {
    const payload = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' })
    const { text } = await exchange(open, (s) => {
      s.write(head('/api/v1/auth/signin', `Content-Length: ${payload.length}\r\nExpect: 100-continue\r\nConnection: close\r\n`))
      s.once('data', () => s.write(payload))
    })
    t.same(answers(text).statuses, [100, 200], '100 Continue, then the sign-in answer')
    t.equal(JSON.parse(answers(text).body).status, 'error', 'a refused sign-in, read from the body sent after the 100')
    // the route's own limit (POST /ingest: INGEST_BODY_LIMIT, 4 MiB here) is the one asked for
    const ingest = await exchange(open, (s) => {
      s.write(head('/api/v1/ingest', `Authorization: Bearer ${INGEST_TOKEN}\r\nContent-Length: ${2 * MiB}\r\nExpect: 100-continue\r\n`, 'application/x-ndjson'))
      s.once('data', () => s.end())
    })
    t.equal(answers(ingest.text).statuses[0], 100, '2 MiB to POST /ingest: 100 Continue')
  })

  await t.test(`a body growing past the limit while the client still sends: the whole 413, ${TRIES} times`, async (t) => {
    const seen: Record<string, number> = {}
    for (let i = 0; i < TRIES; i++) {
      const { text, error } = await exchange(open, (s) => {
        // the client reads nothing until it has sent all of its 2.5 MiB, in 40 pieces, as an upload does
        s.pause()
        s.write(head('/api/v1/auth/signin', 'Transfer-Encoding: chunked\r\n'))
        let n = 0
        const next = () => {
          if (s.destroyed) return
          if (n++ === 40) {
            s.write('0\r\n\r\n')
            s.resume()
            return
          }
          s.write(`${CHUNK.toString(16)}\r\n${'x'.repeat(CHUNK)}\r\n`)
          setImmediate(next)
        }
        next()
      })
      const { statuses, headers, body } = answers(text)
      const outcome = statuses.length === 1 && statuses[0] === 413 && body === JSON.stringify(tooLarge) && headers.connection === 'close'
        ? 'a whole 413'
        : `${statuses.join(',') || 'nothing'}${error ? ` (${error})` : ''}`
      seen[outcome] = (seen[outcome] ?? 0) + 1
    }
    t.same(seen, { 'a whole 413': TRIES }, 'every try read its 413 before the connection closed')
  })

  await t.test('a Content-Length over the limit sent with its body at once: the whole 413', async (t) => {
    const { text } = await exchange(open, (s) => {
      s.pause()
      s.write(head('/api/v1/auth/signin', `Content-Length: ${2 * MiB}\r\n`))
      s.write(Buffer.alloc(2 * MiB, 'x'), () => s.resume())
    })
    t.same(answers(text).statuses, [413])
    t.has(JSON.parse(answers(text).body), tooLarge)
  })
}

t.test('HTTPS, HTTP/2 with HTTP/1.1 by ALPN (the server\'s own TLS)', async (t) => {
  const material = await loadTls({ certFile: '', keyFile: '', dataDir: mkdtempSync(join(tmpdir(), 'pir-body-limits-')) })
  const app = await build(t, env, { fastify: { http2: true, https: { allowHTTP1: true, key: material.key, cert: material.cert } } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  await bodyLimits(t, app, () => tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }))
})

t.test('plain HTTP (TLS=off, behind a proxy)', async (t) => {
  const app = await build(t, env)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  await bodyLimits(t, app, () => netConnect({ port, host: '127.0.0.1' }))
})
