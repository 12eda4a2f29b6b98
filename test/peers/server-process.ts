// A server process as an operator starts one (`node --import tsx src/server.ts`) with an environment
// of its own, for tests that need several instances. The OS picks its port (PORT=0); its address is
// read from its "Server listening at" log line. Stopped with SIGTERM at teardown, as in production.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TEST_JWT_SECRET } from '../helper.ts'
import { withoutCoverage } from './child-env.ts'

type Tap = { teardown: (fn: () => unknown) => void }

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
}

/** the environment every instance of one deployment shares, plus what a test sets */
export function serverEnv (env: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    TLS: 'off',
    ALLOW_HTTP: 'true',
    CAPTCHA: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'info',
    // the lowest argon2 cost the config accepts: the same code path, a fraction of the time
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-0123456789abcdefghijkl',
    ...env
  }
}

export async function startServer (t: Tap, env: Record<string, string>): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-server-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: withoutCoverage({ ...process.env, ...serverEnv({ DATA_DIR: dataDir, ...env }) }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  let exited = false
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve() }))
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
    const timer = setTimeout(() => reject(new Error(`the server did not start within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited with ${code} before it listened:\n${output}`))
    })
  })
  return { url, child, output: () => output, stop }
}
