// `npm run tokens` against a running server process (CAPTCHA off): N accounts signed up and signed in,
// one working JWT a line and the matching session cookie a line; a second run signs the same
// accounts in again.
import t from '../tap.ts'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { call, startServer } from '../peers/server-process.ts'
import { withoutCoverage } from '../peers/child-env.ts'
import { childDatabase, ROOT, tempDir } from '../foundation/support.ts'

async function tokens (args: string[]): Promise<{ code: number | null, stderr: string }> {
  const child = spawn('npm', ['run', '--silent', 'tokens', '--', ...args], {
    cwd: ROOT, env: withoutCoverage({ ...process.env }), stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr!.on('data', (d) => { stderr += d })
  const [code] = await once(child, 'exit')
  return { code, stderr }
}

t.test('npm run tokens -- --users N writes N working JWTs and session cookies', async (t) => {
  const db = await childDatabase(t, { migrated: true })
  const server = await startServer(t, { ...db.env, RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000' })
  const dir = tempDir(t)
  const out = join(dir, 'tokens.txt')
  const cookiesFile = join(dir, 'cookies.txt')
  const first = await tokens(['--users', '5', '--url', server.url, '--out', out, '--cookies', cookiesFile, '--concurrency', '3'])
  t.equal(first.code, 0, first.stderr)
  t.match(first.stderr, /5\/5 accounts/, 'progress on stderr')
  const jwts = readFileSync(out, 'utf8').trimEnd().split('\n')
  const cookies = readFileSync(cookiesFile, 'utf8').trimEnd().split('\n')
  t.equal(jwts.length, 5, 'one JWT a line')
  t.equal(cookies.length, 5, 'one cookie a line')
  const emails = new Set<string>()
  for (const jwt of jwts) {
    const me = await call(server, 'GET', '/auth/info', { authorization: `Bearer ${jwt}` })
    t.equal(me.status, 200, 'the JWT signs requests in')
    emails.add(me.json.email)
  }
  t.same([...emails].sort(), [1, 2, 3, 4, 5].map((i) => `load-${i}@load.example`), 'five distinct accounts')
  for (const cookie of cookies) t.match(cookie, /^sid=.+/)
  const refreshed = await call(server, 'POST', '/auth/token/refresh', { cookie: cookies[0] })
  t.equal(refreshed.status, 200, 'a cookie refreshes')

  const again = await tokens(['--users', '5', '--url', server.url, '--out', out])
  t.equal(again.code, 0, `a second run signs the same accounts in again: ${again.stderr}`)
  t.equal(readFileSync(out, 'utf8').trimEnd().split('\n').length, 5)

  const bad = await tokens(['--users', 'many'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--users must be a positive integer\nusage: npm run tokens/)
})
