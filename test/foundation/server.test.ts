// src/server.ts as `npm start` runs it: one line for a wrong setting;
// HTTPS with HTTP/2 and HTTP/1.1 by ALPN on a self-signed certificate generated once into
// DATA_DIR/tls (logged with its path and fingerprint); health; graceful shutdown on SIGTERM and
// SIGINT; no password, token or cookie in the log.
import t from '../tap.ts'
import { once } from 'node:events'
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { connect as http2Connect } from 'node:http2'
import { request as httpsRequest, type RequestOptions } from 'node:https'
import { connect as tlsConnect } from 'node:tls'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { until } from '../peers/wait.ts'
import { childDatabase, run, spawnEntry, tempDir } from './support.ts'

const PASSWORD = 'a long pass phrase for the server test'

interface Started { child: ChildProcess, base: string, logs: () => Array<Record<string, unknown>>, stdout: () => string, exited: Promise<number | null> }

async function start (env: Record<string, string>): Promise<Started> {
  // the lowest argon2 cost the config accepts: the same code path, a fraction of the time
  const child = spawnEntry('src/server.ts', [], {
    NODE_ENV: 'development', PORT: '0', WORKERS: '0', DEMO_DATA: 'off', LOG_LEVEL: 'info', ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1', SHUTDOWN_READY_DELAY_S: '0', ...env
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => { stdout += d })
  child.stderr!.on('data', (d) => { stderr += d })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const logs = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
  const listening = await until(() => {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`)
    return logs().find((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at https://'))
  }, { timeoutMs: 60_000, what: 'the server to listen' })
  const base = /https:\/\/[^\s]+/.exec(listening.msg as string)![0]
  return { child, base, logs, stdout: () => stdout, exited }
}

/** one request over HTTP/2 (ALPN h2) */
async function h2 (base: string, path: string, opts: { method?: string, body?: unknown, headers?: Record<string, string> } = {}) {
  const session = http2Connect(base, { rejectUnauthorized: false })
  try {
    await once(session, 'connect')
    const alpn = session.alpnProtocol
    const req = session.request({
      ':method': opts.method ?? 'GET',
      ':path': path,
      ...(opts.body ? { 'content-type': 'application/json' } : {}),
      ...opts.headers
    })
    if (opts.body) req.end(JSON.stringify(opts.body))
    else req.end()
    const [headers] = await once(req, 'response') as [Record<string, string | string[]>]
    let text = ''
    req.setEncoding('utf8')
    for await (const chunk of req) text += chunk
    return { alpn, status: Number(headers[':status']), headers, body: JSON.parse(text) }
  } finally {
    session.close()
  }
}

/** one request over HTTP/1.1 (ALPN http/1.1) */
function h1 (base: string, path: string): Promise<{ alpn: string | false | null, status: number, body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, base), { rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], agent: false } as RequestOptions, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { text += d })
      res.on('end', () => resolve({ alpn: (res.socket as unknown as { alpnProtocol: string | false | null }).alpnProtocol, status: res.statusCode!, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** bytes Node's HTTP/1.1 parser refuses, sent over TLS: the answer before the socket closes */
function malformed (base: string): Promise<string> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: hostname, port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
      socket.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nBroken header line\r\n\r\n')
    })
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (d) => { text += d })
    socket.on('close', () => resolve(text))
    socket.on('error', (err) => text ? resolve(text) : reject(err))
  })
}

t.test('a wrong setting stops the process with one line naming the variable', async (t) => {
  const dataDir = tempDir(t)
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /^invalid configuration: PORT must be integer$/],
    [{ TLS_CERT_FILE: join(dataDir, 'none.crt'), TLS_KEY_FILE: join(dataDir, 'none.key') }, /^invalid configuration: TLS_CERT_FILE .* cannot be read \(ENOENT\)$/]
  ]
  for (const [env, line] of cases) {
    const res = await run('src/server.ts', [], { DATA_DIR: dataDir, WORKERS: '0', DEMO_DATA: 'off', ...env })
    t.equal(res.code, 1, `${JSON.stringify(env)}: exit code 1`)
    t.equal(res.stderr.trimEnd().split('\n').length, 1, `${JSON.stringify(env)}: one line`)
    t.match(res.stderr.trim(), line)
    t.equal(res.stdout, '', 'nothing else is printed')
  }
})

t.test('production with nothing set: every refusal in one run, a line each', async (t) => {
  const res = await run('src/server.ts', [], { NODE_ENV: 'production', DATA_DIR: tempDir(t) })
  t.equal(res.code, 1)
  t.same(res.stderr.trimEnd().split('\n').map((l) => l.split(' ')[2]),
    ['DATABASE_URL', 'JWT_SECRET', 'SESSION_SECRET', 'MFA_ENCRYPTION_KEY', 'TLS_CERT_FILE', 'PUBLIC_URL', 'CAPTCHA_VERIFY_URL', 'SMTP_URL'])
  t.match(res.stderr, /^(invalid configuration: \S+ .* in production.*\n)+$/)
  t.equal(res.stdout, '', 'nothing else is printed')
})

t.test('npm start: HTTPS with HTTP/2 and HTTP/1.1, health, a restart keeps certificate and data, graceful shutdown', async (t) => {
  const db = await childDatabase(t)
  const first = await start(db.env)
  t.teardown(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL') })

  const certFile = join(db.dataDir, 'tls', 'localhost.crt')
  const fingerprint = new X509Certificate(readFileSync(certFile)).fingerprint256
  const certLog = first.logs().find((l) => l.msg === 'generated a self-signed development certificate')
  t.ok(certLog, 'the log says a certificate was generated')
  t.equal(certLog?.certFile, certFile, '… where it is')
  t.equal(certLog?.fingerprint, fingerprint, '… and its fingerprint')
  t.match(first.base, /^https:\/\/127\.0\.0\.1:\d+$/, 'HTTPS on HOST (127.0.0.1 by default)')

  const health2 = await h2(first.base, '/api/v1/health')
  t.equal(health2.alpn, 'h2', 'HTTP/2 negotiated by ALPN')
  t.equal(health2.status, 200)
  t.same(health2.body, { status: 'ok', db: 'ok' })
  t.match(health2.headers['strict-transport-security'], /max-age=\d+/, 'HSTS')
  const health1 = await h1(first.base, '/api/v1/health')
  t.equal(health1.alpn, 'http/1.1', 'HTTP/1.1 allowed by ALPN')
  t.equal(health1.status, 200)
  t.same(health1.body, { status: 'ok', db: 'ok' })

  const bad = await malformed(first.base)
  t.match(bad, /^HTTP\/1\.1 400 /, 'an unparsable HTTP/1.1 request is 400 …')
  t.equal(bad.slice(bad.indexOf('\r\n\r\n') + 4), '{"code":400,"message":"bad request","reason":"bad_request"}', '… in the GeneralError shape')
  const missing = await h2(first.base, '/api/v1/no-such-route')
  t.has([missing.status, missing.body], [404, { code: 404, message: 'not found' }])

  // a newcomer's first steps, over the real listener; CAPTCHA is off in development without a provider
  const email = 'newcomer@example.com'
  const up = await h2(first.base, '/api/v1/auth/signup', { method: 'POST', body: { email, password: PASSWORD, token: 'any' } })
  t.same(up.body, { status: 'success' })
  const signin = await h2(first.base, '/api/v1/auth/signin', { method: 'POST', body: { email, password: PASSWORD, token: true } })
  t.equal(signin.body.status, 'success')
  const token = signin.body.token as string
  const cookie = String(([] as string[]).concat(signin.headers['set-cookie'])[0]).split(';')[0]
  t.match(cookie, /^sid=.+/)
  const refreshed = await h2(first.base, '/api/v1/auth/token/refresh', { method: 'POST', headers: { cookie } })
  t.equal(refreshed.status, 200)
  const me = await h2(first.base, '/api/v1/auth/info', { headers: { authorization: `Bearer ${token}` } })
  t.equal(me.body.email, email)

  first.child.kill('SIGTERM')
  t.equal(await first.exited, 0, 'SIGTERM: a clean exit')
  t.ok(first.logs().some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'), 'the shutdown is logged')
  const out = first.stdout()
  t.ok(first.logs().some((l) => l.reqId && l.req), 'request lines carry a request id')
  t.notOk(out.includes(PASSWORD), 'no password in the log')
  t.notOk(out.includes(token), 'no JWT in the log')
  t.notOk(out.includes(refreshed.body.token), 'no refreshed JWT in the log')
  t.notOk(out.includes(cookie.slice(4)), 'no session cookie in the log')

  const second = await start(db.env)
  t.teardown(() => { if (second.child.exitCode === null) second.child.kill('SIGKILL') })
  const loaded = second.logs().find((l) => l.msg === 'TLS certificate loaded')
  t.ok(loaded, 'the certificate is not generated again')
  t.equal(loaded?.fingerprint, fingerprint, 'the same certificate')
  const again = await h2(second.base, '/api/v1/auth/signin', { method: 'POST', body: { email, password: PASSWORD } })
  t.same(again.body, { status: 'success' }, 'the account survived the restart (same database, same secrets)')
  const stillValid = await h2(second.base, '/api/v1/auth/info', { headers: { authorization: `Bearer ${token}` } })
  t.equal(stillValid.status, 200, 'a JWT of the first run verifies (the generated JWT secret is kept)')
  second.child.kill('SIGINT')
  t.equal(await second.exited, 0, 'SIGINT: a clean exit')
  t.ok(second.logs().some((l) => l.msg === 'shutting down' && l.signal === 'SIGINT'))
})
