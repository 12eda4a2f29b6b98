// `PORT=<another> npm start` as a newcomer runs a second checkout: with PUBLIC_URL unset it follows the
// listener, so the start-up line's address, the mailed links and the cookie refresh's Origin check all
// name that port; a PUBLIC_URL that cannot be this listener (localhost on another port) is one warning
// at start, and a request from another origin of this machine one more, once.
import t from '../tap.ts'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { request } from 'node:https'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { CHEAP_ARGON2, type Tap } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { childDatabase, spawnEntry } from '../foundation/support.ts'

const PASSWORD = 'a long pass phrase for another port'

/** a port nothing listens on now */
async function freePort (): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

interface Started { child: ChildProcess, logs: () => Array<Record<string, unknown>> }

async function start (t: Tap, env: Record<string, string>): Promise<Started> {
  const child = spawnEntry('src/server.ts', [], {
    NODE_ENV: 'development', WORKERS: '0', DEMO_DATA: 'off', LOG_LEVEL: 'info', SHUTDOWN_READY_DELAY_S: '0', ...CHEAP_ARGON2, ...env
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => { stdout += d })
  child.stderr!.on('data', (d) => { stderr += d })
  const logs = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
  await until(() => {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`)
    return logs().find((l) => l.dashboard)
  }, { timeoutMs: 120_000, what: 'the start-up lines' })
  return { child, logs }
}

/** a request to the listener on 127.0.0.1 as a browser at `origin` sends it (Host and, for a POST, Origin) */
async function call (port: number, path: string, opts: { origin: string, body?: unknown, cookie?: string }) {
  const host = new URL(opts.origin).host
  const req = request({
    host: '127.0.0.1',
    port,
    servername: 'localhost',
    rejectUnauthorized: false,
    method: 'POST',
    path,
    headers: {
      host,
      origin: opts.origin,
      'content-type': 'application/json',
      ...(opts.cookie ? { cookie: opts.cookie } : {})
    }
  })
  req.end(JSON.stringify(opts.body ?? {}))
  const [res] = await once(req, 'response') as [IncomingMessage]
  let text = ''
  res.setEncoding('utf8')
  for await (const chunk of res) text += chunk
  return { status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }
}

t.test('only PORT set: the logged address, a mailed link and the cookie refresh are all on that port', async (t) => {
  const db = await childDatabase(t, { migrated: true })
  const port = await freePort()
  const server = await start(t, { ...db.env, PORT: String(port) })
  const here = `https://localhost:${port}`

  const where = server.logs().find((l) => l.dashboard)!
  t.equal(where.dashboard, `${here}/`, 'the start-up line names the address that works')
  t.notOk(server.logs().some((l) => l.level === 40), 'no warning: PUBLIC_URL is this listener')

  const email = 'second-checkout@example.com'
  const up = await call(port, '/api/v1/auth/signup', { origin: here, body: { email, password: PASSWORD, token: 'any' } })
  t.same(up.body, { status: 'success' })
  const outbox = join(db.dataDir, 'outbox')
  const mails = () => existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []
  const mail = await until(() => mails().length > 0 && mails(), { what: 'the confirmation mail' })
  const text = readFileSync(join(outbox, mail[0]), 'utf8').replace(/=\r?\n/g, '')
  t.match(text, new RegExp(`${here}/confirm/[A-Za-z0-9_-]{43}`), 'the mailed link is on this port')

  const signin = await call(port, '/api/v1/auth/signin', { origin: here, body: { email, password: PASSWORD, token: true } })
  t.equal(signin.body.status, 'success')
  const cookie = String(([] as string[]).concat(signin.headers['set-cookie'] ?? [])[0]).split(';')[0]
  t.match(cookie, /^sid=.+/)
  const refreshed = await call(port, '/api/v1/auth/token/refresh', { origin: here, cookie })
  t.equal(refreshed.status, 200, 'the refresh from this port\'s origin passes the Origin check')

  // the listening address itself (127.0.0.1) is another origin: refused, and said once in the log
  const other = `https://127.0.0.1:${port}`
  t.equal((await call(port, '/api/v1/auth/token/refresh', { origin: other, cookie })).status, 403)
  t.equal((await call(port, '/api/v1/auth/token/refresh', { origin: other, cookie })).status, 403)
  const warnings = await until(() => {
    const found = server.logs().filter((l) => l.level === 40 && l.origin === other)
    return found.length > 0 && found
  }, { what: 'the mismatch warning' })
  t.equal(warnings.length, 1, 'one warning, not one per request')
  t.match(warnings[0].msg, `sign-in works only at ${here}/`, 'naming where sign-in works')
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
})

t.test('a PUBLIC_URL on this machine but another port: one warning at start, naming the setting that would work', async (t) => {
  const db = await childDatabase(t, { migrated: true })
  const port = await freePort()
  const server = await start(t, { ...db.env, PORT: String(port), PUBLIC_URL: 'https://localhost:8443' })
  t.equal(server.logs().find((l) => l.dashboard)?.dashboard, 'https://localhost:8443/', 'the logged address is PUBLIC_URL, where cookies and passkeys are bound')
  const warnings = server.logs().filter((l) => l.level === 40)
  t.equal(warnings.length, 1, 'one warning')
  t.match(warnings[0].msg, `PUBLIC_URL https://localhost:8443 is not this server (it listens on port ${port})`)
  t.match(warnings[0].msg, `unset PUBLIC_URL or set it to https://localhost:${port}`)
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
})
