// A server process as an operator starts one (src/server.ts, run from the compiled tree of test/peers/compiled.ts) with an environment
// of its own, for tests that need several instances, and a report worker process (`npm run worker`).
// The OS picks the server's port (PORT=0); its address is read from its "Server listening at" log
// line. Stopped with SIGTERM at teardown, as in production. call() and signedInOn() talk to its API.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHEAP_ARGON2, GOOD_PASSWORD, TEST_JWT_SECRET, uniqueEmail } from '../helper.ts'
import { checkResponsesOf, checkServerResponse } from '../response-check.ts'
import { spawnUntracked, withoutCoverage } from './child-env.ts'
import { entryArgs } from './compiled.ts'
import { testEventsUrl } from '../../src/config.ts'

import type { Tap } from '../helper.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const START_TIMEOUT_MS = 60_000

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  url: string
  child: ChildProcess
  /** everything it logged so far (for a failing test's message) */
  output: () => string
  /** SIGTERM and wait for the exit; SIGKILL if it does not come */
  stop: () => Promise<void>
  /** the exit code (null when killed by a signal), once it exits */
  exited: Promise<number | null>
}

/** the environment every instance of one deployment shares, plus what a test sets */
export function serverEnv (env: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    TLS: 'off',
    ALLOW_HTTP: 'true',
    // the deployment's one public origin, which its instances share behind a balancer
    PUBLIC_URL: 'https://localhost:8443',
    CAPTCHA: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'info',
    // SIGTERM at teardown closes at once; a test of the drain sets its own delay
    SHUTDOWN_READY_DELAY_S: '0',
    ...CHEAP_ARGON2,
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-0123456789abcdefghijkl',
    MFA_ENCRYPTION_KEY: 'test-mfa-encryption-key-0123456789abcdef',
    // the suite's events transport (TEST_EVENTS_URL): LISTEN/NOTIFY, or a broker every instance shares
    EVENTS_URL: testEventsUrl,
    ...env
  }
}

/** a server process; every answer call() gets from it is checked against its OpenAPI document (test/response-check.ts) */
export async function startServer (t: Tap, env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  const server = await startProcess(t, 'src/server.ts', env, /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/, opts)
  await checkResponsesOf(t, server.url)
  return server
}

/** `npm run worker`: a report worker process without a listener (its url is '') */
export async function startWorker (t: Tap, env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  return await startProcess(t, 'src/cli/worker.ts', env, /"msg":"report worker started"()/, opts)
}

/** how long a process may take to be ready (START_TIMEOUT_MS unless told: several started at once take longer) */
export interface StartOptions { startTimeoutMs?: number }

/** an entry point, started once its log shows `ready` (whose first group is its URL) */
async function startProcess (t: Tap, script: string, env: Record<string, string>, ready: RegExp, opts: StartOptions): Promise<ServerProcess> {
  const startTimeoutMs = opts.startTimeoutMs ?? START_TIMEOUT_MS
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-server-'))
  const child = spawnUntracked(process.execPath, entryArgs(script), {
    cwd: ROOT,
    env: withoutCoverage({ ...process.env, ...serverEnv({ DATA_DIR: dataDir, ...env }) }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  let exited = false
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => { exited = true; resolve(code) }))
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exit
      clearTimeout(killer)
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
  t.teardown(stop)

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${startTimeoutMs} ms:\n${output}`)), startTimeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const m = ready.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${script} exited with ${code} before it was ready:\n${output}`))
    })
  })
  return { url, child, output: () => output, stop, exited: exit }
}

/** one request to a server process's API (`path` under /api/v1), JSON in and out */
export async function call (server: { url: string }, method: string, path: string, headers: Record<string, string> = {}, body?: unknown,
  opts: { timeoutMs?: number } = {}) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined
  })
  const text = await res.text()
  checkServerResponse(server.url, { method, url: `/api/v1${path}`, statusCode: res.status, contentType: res.headers.get('content-type') ?? undefined, body: text })
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined }
}

/** a new account on a server process (CAPTCHA off), signed in: its JWT, session cookie and e-mail */
export async function signedInOn (server: { url: string }, prefix = 'user') {
  const email = uniqueEmail(prefix)
  const up = await call(server, 'POST', '/auth/signup', {}, { email, password: GOOD_PASSWORD, token: 'captcha' })
  if (up.json?.status !== 'success') throw new Error(`signup failed: ${JSON.stringify(up.json)}`)
  const res = await call(server, 'POST', '/auth/signin', {}, { email, password: GOOD_PASSWORD, token: true })
  if (res.json?.status !== 'success') throw new Error(`signin failed: ${JSON.stringify(res.json)}`)
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sid='))!.split(';')[0]
  const token = res.json.token as string
  return { email, token, cookie, auth: { authorization: `Bearer ${token}` } }
}
