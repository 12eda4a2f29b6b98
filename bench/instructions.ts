// npm run bench:instructions [-- auth-info | refresh ...]: user-space instructions per request of the
// service and of the bare Fastify baseline, each server under valgrind's callgrind, for the HTTP
// scenarios whose ratio is set by the server's CPU per request (1 and 4).
//
// Why: the shared 2-core machines here move req/s by 15-40 % between rounds of the same code, which
// hides a change of a few per cent. callgrind counts instructions, not time: the same code gives the
// same count within 1-2 %, whatever else the machine does, so a change's effect shows in one run.
// It does not count the kernel (the read and write of each request, the same for both servers), and
// a count is not a time (cache misses, branch mispredictions), so req/s stays the figure that counts
// (npm run bench); this says whether a change moved the work.
//
// The service is asked on behalf of BENCH_INSTR_USERS (2,000) users, each with one session, in turn: every in-memory cache then sees as many keys as a real deployment, and a request
// rarely finds what the one before it left (a single session would be answered from per-session
// caches that no real traffic fills). One user signs up and signs in through the API; the others are
// copies of its rows made in SQL (users and sessions), their cookies and tokens signed here with the
// service's secrets, as the service signs them: 4,000 password hashes under valgrind would take
// longer than the count itself. Each server is warmed up (BENCH_INSTR_WARMUP requests, 20,000),
// then callgrind counts BENCH_INSTR_REQUESTS (3,000) over 10 keep-alive connections. Each side runs BENCH_INSTR_RUNS times
// (2) in fresh processes: now and then a process spends its life with one of Node's own object
// literals on V8's slow path (README, Benchmarks), so the lowest count is the one compared. The part
// spent compiling (TurboFan, Maglev) or in full collections is printed apart: it belongs to the
// warm-up, however long. BENCH_INSTR_SIDES=service counts the service alone (when comparing two
// versions of it, the bare side does not change). Needs valgrind (Debian package valgrind). Writes
// bench/results/instructions.json.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freshDatabase } from './lib/database.ts'
import { startHarness } from './lib/harness.ts'
import { startChild, type Child } from './lib/processes.ts'
import { machineStart, round, writeResultFile } from './lib/results.ts'
import { Signer } from '@fastify/cookie'
import { createSigner } from 'fast-jwt'
import postgres from 'postgres'
import { API, signIn, signUp, type SignedIn } from './lib/seed.ts'
import { startService } from './lib/service.ts'

const run = promisify(execFile)
const env = process.env
const WARMUP = Number(env.BENCH_INSTR_WARMUP || 20000)
const REQUESTS = Number(env.BENCH_INSTR_REQUESTS || 3000)
const RUNS = Math.max(1, Number(env.BENCH_INSTR_RUNS || 2))
const USERS = Math.max(1, Number(env.BENCH_INSTR_USERS || 2000))
// a server starting under valgrind on a loaded machine takes minutes (BENCH_INSTR_READY_S)
const READY_MS = Number(env.BENCH_INSTR_READY_S || 1800) * 1000
const SIDES = (env.BENCH_INSTR_SIDES || 'bare,service').split(',').filter((s): s is 'bare' | 'service' => s === 'bare' || s === 'service')
const CONNECTIONS = 10
// warm-up work that a longer warm-up would have left behind: the optimizing compilers, full GC
const WARMUP_WORK = /v8::internal::compiler::|v8::internal::maglev::|Maglev|v8::internal::Compiler|v8::internal::Parser|Deoptimiz|MarkCompact|ConcurrentMarking|MarkingVisitor|Sweeper/

interface Target { method: string, path: string, headers: Record<string, string> }
interface Count { total: number, warmupWork: number, steady: number }
interface Side { counts: Count[], best: Count }

interface Case {
  name: string
  scenario: number
  /** what the service answers, for a signed-in user */
  service: (user: SignedIn) => Target
  bare: Target
}

const CASES: Case[] = [
  {
    name: 'auth-info',
    scenario: 1,
    service: (u) => ({ method: 'GET', path: `${API}/auth/info`, headers: { authorization: `Bearer ${u.token}` } }),
    bare: { method: 'GET', path: '/hello', headers: {} }
  },
  {
    name: 'refresh',
    scenario: 4,
    service: (u) => ({ method: 'POST', path: `${API}/auth/token/refresh`, headers: { cookie: u.cookie } }),
    bare: { method: 'POST', path: '/hello', headers: {} }
  }
]

/** `count` requests, each to the next of `targets` in turn */
async function requests (child: Child, targets: Target[], count: number): Promise<Record<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const statuses: Record<number, number> = {}
  let left = count
  let next = 0
  const one = () => new Promise<number>((resolve, reject) => {
    const target = targets[next++ % targets.length]
    const req = http.request(`${child.url}${target.path}`, { method: target.method, agent, headers: target.headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (left-- > 0) {
      const status = await one()
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }))
  agent.destroy()
  return statuses
}

/** the instructions of a callgrind output file, in all and in the warm-up's work */
async function countOf (file: string, requests: number): Promise<Count> {
  const { stdout } = await run('callgrind_annotate', ['--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 })
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'))
  if (!totals) throw new Error(`no totals in ${file}`)
  let warmupWork = 0
  for (const line of stdout.split('\n')) {
    const m = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line)
    if (m && WARMUP_WORK.test(m[2])) warmupWork += Number(m[1].replace(/,/g, ''))
  }
  const total = Number(totals[1])
  return { total: Math.round(total / requests), warmupWork: Math.round(warmupWork / requests), steady: Math.round((total - warmupWork) / requests) }
}

/**
 * host: the HOST the child runs with. valgrind names the pipes callgrind_control talks through after
 * the process's USER and HOST, and the service is given HOST=127.0.0.1 (its listen address).
 */
async function measure (start: (wrapper: string[]) => Promise<Child>, target: (child: Child) => Promise<Target[]>, out: string, host: string | undefined): Promise<Count> {
  const child = await start(['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`])
  const control = (...args: string[]) => run('callgrind_control', [...args, String(child.proc.pid)], { env: { ...process.env, HOST: host } })
  try {
    const t = await target(child)
    const warm = await requests(child, t, WARMUP)
    await control('-i', 'on')
    const measured = await requests(child, t, REQUESTS)
    await control('-i', 'off')
    await control('-d')
    // the dump is written when the process next runs: wait for it before stopping the process
    for (let i = 0; i < 300 && !existsSync(`${out}.1`); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    if (!existsSync(`${out}.1`)) throw new Error(`callgrind wrote no dump of the counted requests (${out}.1)`)
    const bad = Object.keys({ ...warm, ...measured }).filter((s) => s !== '200')
    if (bad.length) throw new Error(`${t[0].method} ${t[0].path} answered ${JSON.stringify({ warmUp: warm, counted: measured })}`)
  } finally {
    await child.stop()
  }
  // callgrind numbers its dumps: the first is the measured window
  return await countOf(`${out}.1`, REQUESTS)
}

/**
 * `n` signed-in users, one session each: the first signed up and in through the API, the others
 * copies of its users and sessions rows with new ids, their cookies and tokens signed with the
 * service's secrets (the first one's cookie is checked against what the service sent).
 */
async function signedInUsers (child: Child, databaseUrl: string, secrets: { jwtSecret: string, sessionSecret: string }, n: number): Promise<SignedIn[]> {
  const first = await signIn(child, await signUp(child))
  const signer = new Signer([secrets.sessionSecret], 'sha256')
  // the cookie's value as the service sends it: encoded or not, whichever matches the first user's
  const raw = (sid: string) => `sid=${signer.sign(sid)}`
  const encoded = (sid: string) => `sid=${encodeURIComponent(signer.sign(sid))}`
  const sign = createSigner({ key: secrets.jwtSecret, algorithm: 'HS256', expiresIn: 86_400_000 })
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    const live = await sql<Array<{ id: string }>>`select id from sessions where ended_at is null`
    const id = live.map((r) => r.id).find((sid) => raw(sid) === first.cookie || encoded(sid) === first.cookie)
    if (id === undefined) throw new Error('the session cookie is not signed as the service signs it')
    const cookieOf = raw(id) === first.cookie ? raw : encoded
    const rows = await sql<Array<{ sid: string, publicId: string, userId: string, email: string }>>`
      with u as (
        insert into users select (jsonb_populate_record(null::users, to_jsonb(o) || jsonb_build_object(
          'id', gen_random_uuid(), 'email', 'instr-' || g || '-' || o.email))).*
        from users o, generate_series(2, ${n}) g
        returning id, email
      ), s as (
        insert into sessions select (jsonb_populate_record(null::sessions, to_jsonb(o) || jsonb_build_object(
          'id', replace(gen_random_uuid()::text, '-', ''), 'public_id', gen_random_uuid(), 'user_id', u.id))).*
        from sessions o, u where o.id = ${id}
        returning id, public_id, user_id
      )
      select s.id as sid, s.public_id::text as "publicId", s.user_id::text as "userId", u.email from s join u on u.id = s.user_id`
    const iat = Math.floor(Date.now() / 1000)
    return [first, ...rows.map((r) => ({ email: r.email, cookie: cookieOf(r.sid), token: sign({ sub: r.userId, sid: r.publicId, iat }) }))]
  } finally {
    await sql.end({ timeout: 5 })
  }
}

try {
  await run('valgrind', ['--version'])
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind); it counts the instructions')
  process.exit(2)
}

const names = process.argv.slice(2).filter((a) => a !== '--')
const chosen = names.length ? CASES.filter((c) => names.includes(c.name) || names.includes(String(c.scenario))) : CASES
if (chosen.length === 0) {
  console.error(`unknown case; one of: ${CASES.map((c) => `${c.scenario} ${c.name}`).join(', ')}`)
  process.exit(2)
}

const h = startHarness()
const machine = machineStart()
const results: Record<string, unknown> = {}
let seq = 0
const print = (label: string, c: Count) => console.log(`    ${label.padEnd(34)} ${String(c.total).padStart(8)} instructions/request (${c.steady} without compiling and full GC)`)
console.log(`instructions per request under callgrind: ${WARMUP} requests of warm-up, ${REQUESTS} counted, ${CONNECTIONS} connections, ${RUNS} runs per side, ${USERS} signed-in users in turn`)
try {
  for (const c of chosen) {
    console.log(`\n[${c.scenario}] ${c.name}`)
    const sides: Partial<Record<'bare' | 'service', Side>> = {}
    for (const which of SIDES) {
      const counts: Count[] = []
      for (let i = 0; i < RUNS; i++) {
        const out = join(h.run.dir, `callgrind.${c.name}.${which}.${++seq}`)
        if (which === 'bare') {
          counts.push(await measure(
            (wrapper) => startChild({ name: `bare-${seq}`, script: 'bench/servers/bare.ts', logDir: h.run.logDir, readyPath: '/health', env: {}, wrapper, readyTimeoutMs: READY_MS }),
            async () => [c.bare], out, env.HOST))
        } else {
          const db = await freshDatabase(`instr_${c.name}`)
          try {
            counts.push(await measure(
              // cheap argon2 parameters: the sign-in before the count would otherwise take minutes under valgrind
              (wrapper) => startService(h.run, { name: `service-${seq}`, databaseUrl: db.url, wrapper, readyTimeoutMs: READY_MS, env: { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' } }),
              async (child) => (await signedInUsers(child, db.url, h.run, USERS)).map(c.service), out, '127.0.0.1'))
          } finally {
            await db.drop()
          }
        }
        print(`${which} run ${i + 1}`, counts[counts.length - 1])
      }
      const best = counts.reduce((a, b) => (b.steady < a.steady ? b : a))
      sides[which] = { counts, best }
    }
    const { bare, service } = sides
    const ratio = bare && service ? round(bare.best.steady / service.best.steady) : null
    if (ratio !== null) console.log(`  => bare / service, lowest steady counts: ${bare!.best.steady} / ${service!.best.steady} = ${ratio}`)
    results[c.name] = { scenario: c.scenario, bare: bare?.counts, service: service?.counts, ratio }
  }
  const file = writeResultFile('instructions', {
    what: 'user-space instructions per request under callgrind; ratio = bare / service of the lowest counts without compiling and full GC',
    settings: { warmup: WARMUP, requests: REQUESTS, connections: CONNECTIONS, runs: RUNS, users: USERS, sides: SIDES },
    cases: results,
    measuredAt: new Date().toISOString(),
    machine: machine()
  })
  console.log(`\n${file}`)
} finally {
  await h.cleanUp()
  h.finish()
}
