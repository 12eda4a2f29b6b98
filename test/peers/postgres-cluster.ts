// A throwaway PostgreSQL cluster for the fault tests: initdb into a temporary directory, a server on a
// free port of 127.0.0.1, and stop/start at the test's command, so that a test can take "the database"
// away without touching the machine's own cluster (which other tests use). The tools run as the
// `postgres` OS user when we are root (initdb and postgres refuse root), else as ourselves.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import type { Tap } from '../helper.ts'

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  port: number
  /** stop the server (pg_ctl -m fast: every connection is told "terminating connection due to administrator command") */
  stop: () => Promise<void>
  /** start it again on the same port and data */
  start: () => Promise<void>
  /** the server's own log so far (for a failing test's message) */
  log: () => string
}

/** where initdb and pg_ctl are: pg_config's bindir, else the newest /usr/lib/postgresql/<v>/bin, else PATH */
function binDir (): string | null {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
  const candidates = [fromConfig.status === 0 ? fromConfig.stdout.trim() : '']
  for (const v of ['17', '16', '15', '14', '13']) candidates.push(`/usr/lib/postgresql/${v}/bin`)
  for (const dir of candidates) if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' })
  return which.status === 0 ? join(which.stdout.trim(), '..') : null
}

const asRoot = userInfo().uid === 0

/** the command prefix that runs a PostgreSQL tool as a user it accepts */
function runner (): string[] {
  return asRoot ? ['runuser', '-u', 'postgres', '--'] : []
}

/**
 * Why a throwaway cluster cannot be made here, or null when it can: initdb and pg_ctl found, and,
 * as root, runuser and a `postgres` user to run them as.
 */
export function clusterUnavailable (): string | null {
  const bin = binDir()
  if (!bin) return 'needs PostgreSQL server tools (initdb, pg_ctl) to run a throwaway cluster; none found'
  if (asRoot) {
    if (spawnSync('runuser', ['--help']).status !== 0) return 'runs as root and needs runuser to start PostgreSQL as the postgres user; runuser not found'
    if (spawnSync('id', ['-u', 'postgres']).status !== 0) return 'runs as root and needs a postgres OS user to run initdb as; there is none'
  }
  return null
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

const run = promisify(execFile)

/** run initdb or pg_ctl (asynchronously: the test's clients keep running meanwhile) */
async function pgTool (bin: string, tool: string, args: string[]): Promise<void> {
  const [cmd, ...pre] = [...runner(), join(bin, tool)]
  await run(cmd, [...pre, ...args], { timeout: 60_000 })
}

/** a new cluster, started, removed (server stopped, files deleted) at teardown */
export async function startCluster (t: Tap): Promise<Cluster> {
  const bin = binDir()
  if (!bin) throw new Error(clusterUnavailable() ?? 'no PostgreSQL tools')
  const dir = mkdtempSync(join(tmpdir(), 'pir-cluster-'))
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dir, id('-u'), id('-g'))
  }
  const data = join(dir, 'data')
  const logFile = join(dir, 'server.log')
  let running = false
  t.teardown(async () => {
    if (running) await pgTool(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  })
  // the data only has to last the test: no fsync anywhere
  await pgTool(bin, 'initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'])
  let port = 0
  const start = async () => {
    await pgTool(bin, 'pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, 'start'])
    running = true
  }
  // a port taken between the probe and the start (another test's server) is retried on a new one
  for (let attempt = 1; ; attempt++) {
    port = await freePort()
    try {
      await start()
      break
    } catch (err) {
      if (attempt === 3) throw new Error(`the throwaway PostgreSQL did not start: ${(err as Error).message}\n${readLog(logFile)}`)
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop () {
      await pgTool(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
      running = false
    },
    start,
    log: () => readLog(logFile)
  }
}

function readLog (file: string): string {
  try { return readFileSync(file, 'utf8') } catch { return '' }
}
