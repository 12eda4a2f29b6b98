// One autocannon run, in its own process (bench/clients/load.ts), so that the load generator and
// the server under test are separate processes.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodeCommand, ROOT } from './processes.ts'

export interface LoadSpec {
  url: string
  method?: string
  headers?: Record<string, string>
  /** per-connection headers, round-robin (e.g. one session cookie per connection) */
  headerSets?: Record<string, string>[]
  body?: string
  /**
   * per-connection request lists, round-robin over the connections: each connection cycles through
   * its own list (e.g. its own client address and its own accounts). Built once per connection.
   * A request's `path` (with its query) replaces the URL's.
   */
  requestSets?: Array<Array<{ headers?: Record<string, string>, body?: string, path?: string }>>
  connections: number
  pipelining: number
  /** seconds */
  duration: number
  /** seconds before a request counts as timed out (autocannon's default: 10) */
  timeout?: number
  /** requests per second over all connections; unset: as fast as the server answers */
  rate?: number
  /** run until startLoad's stop() (or `duration`, a cap); runLoad does not set it */
  untilStopped?: boolean
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
  /** requests written, those in flight when the run stopped included: the server answers them after it */
  sent: number
  /** seconds the run lasted */
  seconds: number
}

interface AutocannonJson {
  requests: { average: number, total: number, sent: number }
  latency: { p50: number, p99: number }
  errors: number
  timeouts: number
  non2xx: number
  duration: number
}

/**
 * A load client (bench/clients/) in its own process: the spec as JSON in argv[2], its result the
 * last line of its stdout, as JSON. `connections`: the open files it needs, a socket each.
 */
export async function runClient<T> (script: string, spec: unknown, connections: number): Promise<T> {
  const [cmd, args] = nodeCommand(['--import', 'tsx', script, JSON.stringify(spec)], connections + 256)
  const proc = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout.on('data', (c: Buffer) => { out += c })
  proc.stderr.on('data', (c: Buffer) => { err += c })
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve))
  const line = out.trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(line) as T
  } catch {
    throw new Error(`${script} failed (exit ${code}): ${err.trim() || out.trim()}`)
  }
}

/** a spec too long for one argument (Linux takes at most 128 KiB each) goes through a file, named `@file` */
async function withSpecArgument<T> (spec: unknown, fn: (arg: unknown) => Promise<T>): Promise<T> {
  const json = JSON.stringify(spec)
  if (json.length < 64 * 1024) return await fn(spec)
  const dir = mkdtempSync(join(tmpdir(), 'bench-spec-'))
  try {
    writeFileSync(join(dir, 'spec.json'), json)
    return await fn(`@${join(dir, 'spec.json')}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function toLoadResult (r: AutocannonJson): LoadResult {
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    // autocannon counts a timeout among its errors too
    errors: r.errors + r.non2xx,
    non2xx: r.non2xx,
    total: r.requests.total,
    sent: r.requests.sent,
    seconds: r.duration
  }
}

export async function runLoad (spec: LoadSpec): Promise<LoadResult> {
  return toLoadResult(await withSpecArgument(spec, (arg) => runClient<AutocannonJson>('bench/clients/load.ts', arg, spec.connections)))
}

export interface RunningLoad {
  /** resolved once the client has started its connections */
  started: Promise<void>
  /** end the run now (its result follows) */
  stop: () => void
  result: Promise<LoadResult>
}

/**
 * A run that lasts until stop() (at most spec.duration seconds): for a measurement whose end is an
 * event rather than a time, such as the last alert of an import.
 */
export function startLoad (spec: LoadSpec): RunningLoad {
  let proc: ChildProcess | undefined
  let stopped = false
  let markStarted: () => void = () => {}
  const started = new Promise<void>((resolve) => { markStarted = resolve })
  const result = withSpecArgument({ ...spec, untilStopped: true }, async (arg) => {
    const [cmd, args] = nodeCommand(['--import', 'tsx', 'bench/clients/load.ts', JSON.stringify(arg)], spec.connections + 256)
    const child = proc = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    if (stopped) child.stdin.end()
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c
      if (out.startsWith('started\n')) markStarted()
    })
    child.stderr.on('data', (c: Buffer) => { err += c })
    child.stdin.on('error', () => {})
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    markStarted()
    const line = out.trim().split('\n').pop() ?? ''
    try {
      return toLoadResult(JSON.parse(line) as AutocannonJson)
    } catch {
      throw new Error(`bench/clients/load.ts failed (exit ${code}): ${err.trim() || out.trim()}`)
    }
  })
  result.catch(() => markStarted())
  return {
    started,
    stop () {
      stopped = true
      if (proc && proc.exitCode === null) proc.stdin!.end('stop\n')
    },
    result
  }
}
