// What the SSE scenarios share: the load client's driver (bench/clients/sse-client.ts, its own
// process, asked over IPC; it may hold more sockets than this process's limit on open files, so it
// is started under a raised one), and the one profile a draft report needs, so that a stream has a
// report to follow.
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hardNofile, request, ROOT, softNofile, type Child } from './processes.ts'
import { API, importOrFail, type SignedIn } from './seed.ts'

// One profile is all a draft report needs.
const PROFILE_DATA = [
  { type: 'category', id: 'c-bench', name: 'Bench', synthetic: false },
  { type: 'interest', id: 'i-bench', name: 'Benchmarks', categoryId: 'c-bench' },
  { type: 'account', id: 'a-bench', source: 'ig', username: 'benchpage', fullname: 'Bench Page', interests: ['i-bench'] },
  { type: 'profile', id: 'p-bench', source: 'ig', username: 'benchuser', fullname: 'Bench User', link: 'https://ig.example/benchuser' },
  { type: 'follow', profileId: 'p-bench', accountId: 'a-bench', since: '2025-01-01' }
]

/** the one profile into the database (through `npm run import`) */
export async function importStreamProfile (databaseUrl: string, dir: string): Promise<void> {
  const dataFile = join(dir, 'sse-profile.ndjson')
  writeFileSync(dataFile, PROFILE_DATA.map((r) => JSON.stringify(r)).join('\n') + '\n')
  await importOrFail(databaseUrl, dataFile, join(dir, 'data'))
}

/** a draft report of the user's on that profile; its id */
export async function draftReport (app: Child, user: SignedIn): Promise<string> {
  const created = await request(`${app.url}${API}/report`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: JSON.stringify({ profiles: [{ source: 'ig', username: 'benchuser' }] }) })
  if (created.status !== 201) throw new Error(`report creation failed: ${created.status} ${created.body}`)
  return (JSON.parse(created.body) as { id: string }).id
}

export interface ClientMessage { type: string, [k: string]: unknown }
/** the answer to {type:'open'}: streams held now (every open so far), this call's failures */
export interface Opened extends ClientMessage { open: number, failed: number, statuses: Record<string, number>, ms: number }

export class SseClient {
  private readonly proc: ChildProcess
  private readonly queue: ClientMessage[] = []
  private readonly waiting: Array<(m: ClientMessage) => void> = []
  constructor (nofile: number) {
    const args = ['--import', 'tsx', 'bench/clients/sse-client.ts']
    const raise = softNofile() < nofile
    this.proc = raise
      ? spawn('sh', ['-c', `ulimit -n ${Math.min(nofile, hardNofile())} && exec "$0" "$@"`, process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      : spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.proc.on('message', (m: ClientMessage) => {
      const w = this.waiting.shift()
      if (w) w(m)
      else this.queue.push(m)
    })
  }

  async ask<T extends ClientMessage> (message: ClientMessage): Promise<T> {
    this.proc.send(message)
    const queued = this.queue.shift()
    if (queued) return queued as T
    return await new Promise<T>((resolve) => this.waiting.push(resolve as (m: ClientMessage) => void))
  }

  stop () { this.proc.kill('SIGTERM') }
}
