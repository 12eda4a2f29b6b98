// One autocannon run, in its own process (bench/clients/load.ts), so that the load generator and
// the server under test are separate processes.
import { spawn } from 'node:child_process'
import { ROOT } from './processes.ts'

export interface LoadSpec {
  url: string
  method?: string
  headers?: Record<string, string>
  /** per-connection headers, round-robin (e.g. one session cookie per connection) */
  headerSets?: Record<string, string>[]
  body?: string
  connections: number
  pipelining: number
  /** seconds */
  duration: number
  /** seconds before a request counts as timed out (autocannon's default: 10) */
  timeout?: number
}

export interface LoadResult {
  /** mean of the per-second request counts, as autocannon prints it */
  rps: number
  p50: number
  p99: number
  /** connection errors + timeouts + answers outside 2xx */
  errors: number
  non2xx: number
  total: number
}

interface AutocannonJson {
  requests: { average: number, total: number }
  latency: { p50: number, p99: number }
  errors: number
  timeouts: number
  non2xx: number
}

export async function runLoad (spec: LoadSpec): Promise<LoadResult> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/clients/load.ts', JSON.stringify(spec)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  proc.stdout.on('data', (c: Buffer) => { out += c })
  proc.stderr.on('data', (c: Buffer) => { err += c })
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve))
  const line = out.trim().split('\n').pop() ?? ''
  let r: AutocannonJson
  try {
    r = JSON.parse(line) as AutocannonJson
  } catch {
    throw new Error(`autocannon failed (exit ${code}): ${err.trim() || out.trim()}`)
  }
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    non2xx: r.non2xx,
    total: r.requests.total
  }
}
