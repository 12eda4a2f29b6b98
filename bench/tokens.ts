// npm run tokens -- --users N [--url URL] [--out FILE] [--cookies FILE] [--concurrency C] [--prefix P]
// Tokens for a load test against a running deployment (docs/load-testing.md): N accounts
// P-1@load.example ... P-N@load.example are signed up (CAPTCHA must be off: a development or test
// deployment) and signed in; one JWT a line goes to --out, and with --cookies the matching session
// cookie (`sid=...`, for POST /auth/token/refresh) a line. Running it again signs the same accounts
// in again (a sign-up of an existing address answers success and changes nothing).
// A 429 is waited out (Retry-After) and retried: raise RATE_LIMIT_SIGNUP_IP and RATE_LIMIT_SIGNIN_IP
// on the deployment to go faster. A self-signed certificate is accepted for localhost and with --insecure.
import { request as httpRequest, Agent as HttpAgent } from 'node:http'
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https'
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const USAGE = 'usage: npm run tokens -- --users N [--url https://localhost:8443] [--out tokens.txt] [--cookies FILE] [--concurrency 8] [--prefix load] [--password P] [--insecure]'
const MAX_RETRIES = 20

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string }

function fail (message: string): never {
  console.error(message)
  process.exit(2)
}

function options () {
  return parseArgs({
    options: {
      users: { type: 'string' },
      url: { type: 'string', default: 'https://localhost:8443' },
      out: { type: 'string', default: 'tokens.txt' },
      cookies: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      prefix: { type: 'string', default: 'load' },
      password: { type: 'string', default: 'load test pass phrase 0123' },
      insecure: { type: 'boolean', default: false }
    }
  }).values
}
let values: ReturnType<typeof options>
try {
  values = options()
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`)
}
const users = Number(values.users)
const concurrency = Number(values.concurrency)
if (!Number.isInteger(users) || users < 1) fail(`--users must be a positive integer\n${USAGE}`)
if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency must be a positive integer\n${USAGE}`)
let base: URL
try { base = new URL(values.url) } catch { fail(`--url must be a URL\n${USAGE}`) }
const secure = base.protocol === 'https:'
const local = ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname)
const agent = secure
  ? new HttpsAgent({ keepAlive: true, maxSockets: concurrency, rejectUnauthorized: !(values.insecure || local) })
  : new HttpAgent({ keepAlive: true, maxSockets: concurrency })

function post (path: string, body: unknown): Promise<Answer> {
  const data = JSON.stringify(body)
  const send = secure ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(new URL(`/api/v1${path}`, base), {
      method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { text += d })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(data)
  })
}

let waitedFor429 = 0
/** a POST, a 429 waited out (Retry-After seconds) and retried */
async function postPatiently (path: string, body: unknown): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await post(path, body)
    if (res.status !== 429 || attempt === MAX_RETRIES) return res
    waitedFor429++
    const seconds = Math.min(60, Number(res.headers['retry-after']) || 1)
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  }
}

async function account (i: number): Promise<{ token: string, cookie: string }> {
  const email = `${values.prefix}-${i}@load.example`
  const up = await postPatiently('/auth/signup', { email, password: values.password, token: 'load-test' })
  if (up.status !== 200 || JSON.parse(up.body).status !== 'success') throw new Error(`sign-up of ${email}: ${up.status} ${up.body}`)
  const res = await postPatiently('/auth/signin', { email, password: values.password, token: true })
  const answer = JSON.parse(res.body) as { status?: string, token?: string }
  if (res.status !== 200 || answer.status !== 'success' || !answer.token) throw new Error(`sign-in of ${email}: ${res.status} ${res.body}`)
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('sid='))?.split(';')[0] ?? ''
  return { token: answer.token, cookie }
}

const tokens: string[] = new Array(users)
const cookies: string[] = new Array(users)
const started = Date.now()
let done = 0
let next = 0
let lastLine = 0
function progress (final = false) {
  const s = (Date.now() - started) / 1000
  const line = `${done}/${users} accounts, ${(done / Math.max(s, 0.001)).toFixed(1)}/s, ${s.toFixed(0)} s` +
    (waitedFor429 ? `, ${waitedFor429} waits on 429 (raise RATE_LIMIT_SIGNUP_IP and RATE_LIMIT_SIGNIN_IP)` : '')
  if (process.stderr.isTTY) process.stderr.write(`\r${line}${final ? '\n' : ''}`)
  else if (final || Date.now() - lastLine > 5000) {
    lastLine = Date.now()
    process.stderr.write(line + '\n')
  }
}

async function lane () {
  while (next < users) {
    const i = next++
    const { token, cookie } = await account(i + 1)
    tokens[i] = token
    cookies[i] = cookie
    done++
    progress()
  }
}

try {
  await Promise.all(Array.from({ length: Math.min(concurrency, users) }, lane))
} catch (err) {
  progress(true)
  fail(`tokens: ${(err as Error).message}`)
}
progress(true)
writeFileSync(values.out, tokens.join('\n') + '\n', { mode: 0o600 })
if (values.cookies) writeFileSync(values.cookies, cookies.join('\n') + '\n', { mode: 0o600 })
console.error(`wrote ${users} JWTs to ${values.out}${values.cookies ? ` and their session cookies to ${values.cookies}` : ''}`)
agent.destroy()
