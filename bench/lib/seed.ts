// Seeding through the service's own doors: accounts and reports through the HTTP API, profile data
// through the importer (`npm run import`, src/cli/import.ts) fed with the demo dataset generator.
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { currentMonth, demoDataLines } from '../../src/services/demo/data.ts'
import type { Child } from './processes.ts'
import { request, ROOT, rssOf } from './processes.ts'

export const API = '/api/v1'
export const PASSWORD = 'a long bench pass phrase'

export interface SignedIn { email: string, token: string, cookie: string }

async function postJson (child: Child, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(`${child.url}${API}${path}`, { method: 'POST', body: JSON.stringify(body), headers })
  return { ...res, json: () => JSON.parse(res.body) as Record<string, unknown> }
}

let userSeq = 0
export async function signUp (child: Child, email = `bench-${process.pid}-${++userSeq}@example.com`): Promise<string> {
  const res = await postJson(child, '/auth/signup', { email, password: PASSWORD, token: 'bench' })
  if (res.status !== 200 || res.json().status !== 'success') throw new Error(`sign-up failed: ${res.status} ${res.body}`)
  return email
}

export async function signIn (child: Child, email: string): Promise<SignedIn> {
  const res = await postJson(child, '/auth/signin', { email, password: PASSWORD, token: true })
  const json = res.json()
  if (res.status !== 200 || json.status !== 'success') throw new Error(`sign-in failed: ${res.status} ${res.body}`)
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])
  const sid = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('sid='))
  if (!sid) throw new Error('sign-in set no session cookie')
  return { email, token: String(json.token), cookie: sid }
}

export async function signedInUser (child: Child): Promise<SignedIn> {
  return await signIn(child, await signUp(child))
}

/** a new API key of a signed-in user with these scopes (POST /auth/api-keys, right after sign-in) */
export async function apiKey (child: Child, user: SignedIn, scopes: string[]): Promise<string> {
  const res = await postJson(child, '/auth/api-keys', { name: 'bench', scopes }, { authorization: `Bearer ${user.token}` })
  if (res.status !== 201) throw new Error(`issuing an API key failed: ${res.status} ${res.body}`)
  return String(res.json().key)
}

export interface DemoFile {
  file: string
  lines: number
  /** one profile per source, each with friends: a five-profile report */
  reportProfiles: Array<{ source: string, username: string }>
}

/** the deterministic demo dataset (seed 1, this month) as an NDJSON file */
export async function writeDemoData (dir: string): Promise<DemoFile> {
  const file = join(dir, 'demo-data.ndjson')
  const out = createWriteStream(file)
  const profiles = new Map<string, { source: string, username: string }>()
  const friends = new Map<string, number>()
  let lines = 0
  for (const line of demoDataLines(1, currentMonth())) {
    lines++
    const r = JSON.parse(line) as { type: string, id: string, source: string, username: string, a: string, b: string }
    if (r.type === 'profile') profiles.set(r.id, { source: r.source, username: r.username })
    if (r.type === 'friend') for (const id of [r.a, r.b]) friends.set(id, (friends.get(id) ?? 0) + 1)
    if (!out.write(line + '\n')) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  // per source, the profile with the most friends: a report with every part filled
  const best = new Map<string, { source: string, username: string, friends: number }>()
  for (const [id, p] of profiles) {
    const n = friends.get(id) ?? 0
    const b = best.get(p.source)
    if (!b || n > b.friends) best.set(p.source, { ...p, friends: n })
  }
  return { file, lines, reportProfiles: [...best.values()].map(({ source, username }) => ({ source, username })) }
}

export interface ImportRun {
  ms: number
  exitCode: number | null
  output: string
  /** RSS of the import process, sampled every 100 ms (bytes) */
  rss: number[]
}

/** `npm run import -- FILE` against a database, timed, its RSS sampled */
export async function runImport (databaseUrl: string, file: string, dataDir: string): Promise<ImportRun> {
  const started = performance.now()
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/import.ts', file], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  proc.stdout.on('data', (c: Buffer) => { output += c })
  proc.stderr.on('data', (c: Buffer) => { output += c })
  const rss: number[] = []
  const sampler = setInterval(() => { const r = rssOf(proc.pid!); if (r) rss.push(r) }, 100)
  const [exitCode] = await once(proc, 'exit') as [number | null]
  clearInterval(sampler)
  return { ms: performance.now() - started, exitCode, output: output.trim(), rss }
}

export async function importOrFail (databaseUrl: string, file: string, dataDir: string): Promise<ImportRun> {
  const r = await runImport(databaseUrl, file, dataDir)
  if (r.exitCode !== 0) throw new Error(`import of ${file} failed (exit ${r.exitCode}): ${r.output.slice(0, 2000)}`)
  return r
}

/** a report on the given profiles, generated and ready; its id */
export async function readyReport (child: Child, user: SignedIn, profiles: Array<{ source: string, username: string }>): Promise<string> {
  const auth = { authorization: `Bearer ${user.token}` }
  const created = await postJson(child, '/report', { profiles }, auth)
  if (created.status !== 201) throw new Error(`report creation failed: ${created.status} ${created.body}`)
  const id = String(created.json().id)
  const gen = await request(`${child.url}${API}/report/${id}/generate`, { method: 'POST', headers: auth })
  if (gen.status !== 202) throw new Error(`generate failed: ${gen.status} ${gen.body}`)
  const until = Date.now() + 120_000
  while (Date.now() < until) {
    const res = await request(`${child.url}${API}/report/${id}`, { headers: auth })
    const status = (JSON.parse(res.body) as { status: string }).status
    if (status === 'ready') return id
    if (status === 'failed') throw new Error(`report ${id} failed`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`report ${id} was not ready within 120 s`)
}
