// Child processes of the benchmark: the service and the baseline servers (each its own process,
// so that the load generator never shares a CPU queue slot with what it measures more than the
// machine forces), started on a free port, waited for, and stopped by their own pid.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { settings } from './settings.ts'

export const ROOT = new URL('../..', import.meta.url).pathname

export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

/** a process's memory after full, compacting collections (bench/lib/probe.ts says what each figure holds) */
export type ProbeMemory = NodeJS.MemoryUsage & {
  /** bytes V8 has committed to its young generation */
  youngGeneration: number
  /** v8Resident + mallocResident: what the process keeps, without the young generation */
  retained: number
  /** resident pages of the V8 heap outside the young generation */
  v8Resident: number
  /** resident pages of the main thread's malloc arena */
  mallocResident: number
}

export interface Child {
  name: string
  proc: ChildProcess
  port: number
  /** the base URL (http or https) */
  url: string
  /** ask the child's memory probe (bench/lib/probe.ts) for its memory after full, compacting collections */
  memory: () => Promise<ProbeMemory>
  /** write a heap snapshot of the child into file (bench/lib/probe.ts) */
  heapSnapshot: (file: string) => Promise<string>
  /** a scavenge in the child (bench/lib/probe.ts), resolved once it has run */
  youngGc: () => Promise<void>
  /** send a message over the IPC channel */
  send: (message: unknown) => void
  stop: () => Promise<void>
}

export interface StartOptions {
  name: string
  /** script path relative to the repository */
  script: string
  env: Record<string, string>
  port?: number
  https?: boolean
  /** path answering 200 once the child is ready */
  readyPath?: string
  /** raise the soft limit on open files for this child (ulimit -n in a child shell) */
  nofile?: number
  logDir: string
  /** extra node flags */
  nodeFlags?: string[]
  /** a command the node process runs under, e.g. valgrind and its options (bench/instructions.ts) */
  wrapper?: string[]
  /** how long the child may take to answer readyPath (60 s) */
  readyTimeoutMs?: number
}

/** the soft limit on open files of a shell started from here */
export function softNofile (): number {
  const out = spawnSyncText('sh', ['-c', 'ulimit -n'])
  return out === 'unlimited' ? Infinity : Number(out)
}

export function hardNofile (): number {
  const out = spawnSyncText('sh', ['-c', 'ulimit -Hn'])
  return out === 'unlimited' ? Infinity : Number(out)
}

function spawnSyncText (cmd: string, args: string[]): string {
  return String(execFileSync(cmd, args)).trim()
}

/** node with these arguments; with nofile, under a soft limit on open files raised to it (or the hard limit) */
export function nodeCommand (nodeArgs: string[], nofile?: number): [string, string[]] {
  if (!nofile || softNofile() >= nofile) return [process.execPath, nodeArgs]
  const limit = Math.min(nofile, hardNofile())
  // Node cannot raise its own limit: a shell raises it for the child it execs.
  return ['sh', ['-c', `ulimit -n ${limit} && exec "$0" "$@"`, process.execPath, ...nodeArgs]]
}

let profileSeq = 0

export async function startChild (opts: StartOptions): Promise<Child> {
  const port = opts.port ?? await freePort()
  const flags = ['--expose-gc', '--import', 'tsx', '--import', './bench/lib/probe.ts', ...(opts.nodeFlags ?? [])]
  if (settings.cpuProfDir) {
    // one directory per process: node writes a profile per thread (the module loader has its own)
    flags.push('--cpu-prof', `--cpu-prof-dir=${join(settings.cpuProfDir, `${opts.name}-${process.pid}-${++profileSeq}`)}`)
  }
  const [node, nodeArgs] = nodeCommand([...flags, opts.script], opts.nofile)
  const [cmd, args] = opts.wrapper?.length ? [opts.wrapper[0], [...opts.wrapper.slice(1), node, ...nodeArgs]] : [node, nodeArgs]
  const log = createWriteStream(join(opts.logDir, `${opts.name}.log`), { flags: 'a' })
  const proc = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc']
  })
  proc.stdout!.pipe(log)
  proc.stderr!.pipe(log)
  const url = `${opts.https ? 'https' : 'http'}://127.0.0.1:${port}`

  let exited = false
  proc.once('exit', () => { exited = true })
  // the probe answers each request with a message of the same type, in the order asked
  interface ProbeReply { type: string, memory?: ProbeMemory, file?: string }
  const waiting = new Map<string, Array<(reply: ProbeReply) => void>>()
  proc.on('message', (m: Partial<ProbeReply>) => {
    if (typeof m?.type === 'string') waiting.get(m.type)?.shift()?.(m as ProbeReply)
  })
  const ask = (message: { type: string, file?: string }) => new Promise<ProbeReply>((resolve, reject) => {
    if (exited) { reject(new Error(`${opts.name} has exited`)); return }
    const queue = waiting.get(message.type) ?? []
    waiting.set(message.type, queue)
    queue.push(resolve)
    proc.send(message)
  })

  const child: Child = {
    name: opts.name,
    proc,
    port,
    url,
    memory: async () => (await ask({ type: 'memory' })).memory!,
    heapSnapshot: async (file) => (await ask({ type: 'heap-snapshot', file })).file!,
    youngGc: async () => { await ask({ type: 'young-gc' }) },
    send: (message) => { proc.send(message as never) },
    async stop () {
      if (exited) return
      const done = once(proc, 'exit')
      proc.kill('SIGTERM')
      const timer = setTimeout(() => { if (!exited) proc.kill('SIGKILL') }, 15_000)
      await done
      clearTimeout(timer)
      log.end()
    }
  }

  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000
  const until = Date.now() + readyTimeoutMs
  const readyPath = opts.readyPath ?? '/api/v1/health'
  for (;;) {
    if (exited) throw new Error(`${opts.name} exited before it was ready; see ${join(opts.logDir, `${opts.name}.log`)}`)
    if (Date.now() > until) {
      await child.stop()
      throw new Error(`${opts.name} was not ready within ${readyTimeoutMs / 1000} s; see ${join(opts.logDir, `${opts.name}.log`)}`)
    }
    try {
      const res = await request(`${url}${readyPath}`)
      if (res.status === 200) break
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return child
}

/** VmRSS of a process, in bytes (Linux) */
export function rssOf (pid: number): number {
  return statusBytes(pid, 'VmRSS')
}

/** VmHWM of a process: the largest its resident set has been, in bytes (Linux) */
export function peakRssOf (pid: number): number {
  return statusBytes(pid, 'VmHWM')
}

function statusBytes (pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

export interface SimpleResponse { status: number, headers: Record<string, string | string[] | undefined>, body: string }

/** a plain HTTP(S) request that accepts the development certificate */
export async function request (url: string, init: { method?: string, headers?: Record<string, string>, body?: string, timeoutMs?: number } = {}): Promise<SimpleResponse> {
  const u = new URL(url)
  const mod = u.protocol === 'https:' ? await import('node:https') : await import('node:http')
  return await new Promise((resolve, reject) => {
    const req = mod.request(u, {
      method: init.method ?? 'GET',
      headers: init.body !== undefined ? { 'content-type': 'application/json', ...init.headers } : init.headers,
      rejectUnauthorized: false,
      agent: false
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(init.timeoutMs ?? 30_000, () => req.destroy(new Error(`timeout: ${url}`)))
    req.end(init.body)
  })
}
