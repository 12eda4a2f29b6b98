// Helpers shared by the foundation tests (not a test file itself): temporary directories, a database
// for a child process, running the service's entry points as the operator does, capturing log lines.
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import type { FastifyServerOptions } from 'fastify'
import { testDatabaseUrl } from '../../src/config.ts'
import { loggerOptions } from '../../src/logger.ts'
import { spawnUntracked, withoutCoverage } from '../peers/child-env.ts'
import { entryArgs } from '../peers/compiled.ts'
import { createFromTemplate, databaseUrl, pgliteTemplateDir } from '../db-template.ts'
import type { Tap } from '../helper.ts'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export function tempDir (t: Tap, prefix = 'pir-foundation-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Where a child process keeps its data: a temporary DATA_DIR (embedded PGlite), and with
 * TEST_DATABASE_URL a new PostgreSQL database, dropped at teardown. Empty, unless `migrated`: then a
 * copy of the migrated template (test/db-template.ts), so that a child which is not about migrating
 * skips PGlite's initdb and the migrations (several seconds of CPU).
 */
export async function childDatabase (t: Tap, opts: { migrated?: boolean } = {}): Promise<{ env: Record<string, string>, dataDir: string, url: string }> {
  const dataDir = tempDir(t)
  if (!testDatabaseUrl) {
    // where the child's createDatabase({ dataDir }) keeps the embedded database
    if (opts.migrated) cpSync(await pgliteTemplateDir(), join(dataDir, 'pglite'), { recursive: true })
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '' }, dataDir, url: '' }
  }
  const name = `pir_child_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} })
  if (opts.migrated) await createFromTemplate(admin, name)
  else await admin.unsafe(`create database ${name}`)
  t.teardown(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.end()
  })
  const url = databaseUrl(name)
  return { env: { DATA_DIR: dataDir, DATABASE_URL: url }, dataDir, url }
}

/** the environment a child starts from: ours minus anything that would change its configuration */
export function childEnv (env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(NODE_ENV|HOST|PORT|PUBLIC_URL|DATA_DIR|DATABASE_URL|TLS.*|TRUST_PROXY|ALLOW_HTTP|JWT_.*|SESSION_.*|CAPTCHA.*|SMTP_URL|MAIL_FROM|REDIS_URL|EVENTS_URL|WORKERS|DEMO_DATA|LOG_LEVEL|CORS_ORIGINS|TEST_DATABASE_URL)$/.test(k)) base[k] = v
  }
  return withoutCoverage({ ...base, ...env })
}

export function spawnEntry (script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawnUntracked(process.execPath, [...entryArgs(script), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

/** what a child process wrote, and its exit code, once it has ended */
export interface Finished { code: number | null, stdout: string, stderr: string }

function finished (child: ChildProcess): Promise<Finished> {
  return new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d) => { stdout += d })
    child.stderr!.on('data', (d) => { stderr += d })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** run an entry point (src/cli/*.ts, src/server.ts) to its end */
export function run (script: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return finished(spawnEntry(script, args, env))
}

/** `npm run --silent <script> -- args` as the operator types it, with the child's configuration in env */
export function npmRun (script: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return finished(spawnUntracked('npm', ['run', '--silent', script, '--', ...args], {
    cwd: ROOT,
    env: withoutCoverage({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', TEST_DATABASE_URL: '', ...env }),
    stdio: ['ignore', 'pipe', 'pipe']
  }))
}

/**
 * Fastify options that send the service's own logger configuration (level trace, its redaction and
 * serializers) to memory instead of stdout; `lines` are the JSON lines written.
 */
export function captureLogs () {
  const lines: string[] = []
  const stream = { write (line: string) { lines.push(line) } }
  const fastify = { logger: { ...(loggerOptions('trace') as object), stream } } as Partial<FastifyServerOptions>
  return {
    lines,
    fastify,
    text: () => lines.join(''),
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  }
}
