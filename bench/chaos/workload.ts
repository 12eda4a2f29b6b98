// The chaos run's mixed workload, bounded in rate: a few loops, each a customer's habit, each with a
// pause between its steps, through the round-robin client (bench/chaos/client.ts). A call that gets
// no answer or a 5xx is tried again later, as a client would; every 202 to a generate call, every
// revocation that was answered, and every import is written down for the books.
//   accounts:    sign up, sign in, register a webhook endpoint (report.ready, report.failed) at the receiver
//   reports:     create a report on the showcase's profiles; generate it until the call answers 202
//   follow-up:   read each generated report until it is ready or failed; watch a ready one (up to 5 a user)
//   reads:       GET /auth/info and GET /report/{id}
//   revocations: sign in twice, issue an API key, revoke the key and end the second session, probe both on each instance
//   imports:     the showcase's next month through POST /ingest, at set moments (watched profiles raise alerts)
import { randomUUID } from 'node:crypto'
import type postgres from 'postgres'
import { latestMonth, monthAfter, nextMonthLines, type ShowcaseFollow } from '../../src/services/demo/next-month.ts'
import { SHOWCASE } from '../../src/services/demo/showcase.ts'
import { PASSWORD } from '../lib/seed.ts'
import { anyInstance, call, type Answer, type CallLog } from './client.ts'
import { INGEST_TOKEN, type Proc } from './cluster.ts'

const SEED = 1
/** watches a user may hold without a subscription (WATCH_MAX) */
const WATCHES_PER_USER = 5

export interface User { email: string, token: string, reports: string[], watches: number }

export interface Revocation { kind: 'session' | 'api key', credential: string, at: number }

export interface Probe { kind: Revocation['kind'], at: number, instance: string, status: number }

export interface ImportRecord { month: string, sentAt: number, doneAt: number, attempts: number }

export interface Ledger {
  users: User[]
  /** reports whose generate call answered 202 */
  accepted: Set<string>
  /** reports created and not yet answered 202 (tried again) */
  toGenerate: Set<string>
  /** reports answered 402 (no credit left) */
  unpaid: number
  final: Map<string, 'ready' | 'failed'>
  watched: Set<string>
  revocations: Revocation[]
  /** probes of revoked credentials during the run (at least a second after the revocation) */
  probes: Probe[]
  imports: ImportRecord[]
  counts: Record<string, number>
}

export function newLedger (): Ledger {
  return { users: [], accepted: new Set(), toGenerate: new Set(), unpaid: 0, final: new Map(), watched: new Set(), revocations: [], probes: [], imports: [], counts: {} }
}

interface Context { webs: Proc[], log: CallLog, ledger: Ledger, receiverUrl: string, sql: postgres.Sql, running: () => boolean }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]
const ok = (a: Answer) => a.status >= 200 && a.status < 300
const count = (ctx: Context, what: string) => { ctx.ledger.counts[what] = (ctx.ledger.counts[what] ?? 0) + 1 }
/** the session's public id: the JWT's sid */
const sidOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as { sid: string }).sid

let seq = 0

async function signIn (ctx: Context, email: string): Promise<string | null> {
  const a = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/auth/signin', { body: { email, password: PASSWORD, token: true } })
  return a.status === 200 && a.json.status === 'success' ? String(a.json.token) : null
}

/** a new user with a webhook endpoint at the receiver; null when a step did not answer (the loop tries again) */
export async function newUser (ctx: Context): Promise<User | null> {
  const email = `chaos-${process.pid}-${++seq}@example.com`
  const up = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/auth/signup', { body: { email, password: PASSWORD, token: 'chaos' } })
  if (up.status !== 200) return null
  let token: string | null = null
  for (let i = 0; i < 10 && !token; i++) token = await signIn(ctx, email) ?? (await sleep(1000), null)
  if (!token) return null
  // one Idempotency-Key for every try: a retry after a lost answer makes no second endpoint
  const key = randomUUID()
  for (let i = 0; i < 20; i++) {
    const hook = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/webhooks', {
      auth: token, headers: { 'idempotency-key': key }, body: { url: `${ctx.receiverUrl}/hook/${seq}`, events: ['report.ready', 'report.failed'] }
    })
    if (hook.status === 201) {
      const user = { email, token, reports: [], watches: 0 }
      ctx.ledger.users.push(user)
      count(ctx, 'accounts')
      return user
    }
    await sleep(1000)
  }
  return null
}

async function accounts (ctx: Context) {
  while (ctx.running()) {
    await newUser(ctx)
    await sleep(4000)
  }
}

async function reports (ctx: Context, profiles: Array<{ source: string, username: string }>) {
  while (ctx.running()) {
    await sleep(1500)
    if (!ctx.ledger.users.length) continue
    const user = pick(ctx.ledger.users)
    const a = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/report', { auth: user.token, body: { profiles } })
    if (a.status === 201) {
      user.reports.push(String(a.json.id))
      ctx.ledger.toGenerate.add(String(a.json.id))
      count(ctx, 'reports created')
    }
  }
}

/** generate calls until each report's answers 202 (or 402, or 403 when an earlier call's answer was lost) */
export async function generateCalls (ctx: Context, until: () => boolean) {
  const owner = (id: string) => ctx.ledger.users.find((u) => u.reports.includes(id))!
  while (!until()) {
    for (const id of [...ctx.ledger.toGenerate].slice(0, 4)) {
      const a = await call(ctx.log, anyInstance(ctx.webs), 'POST', `/report/${id}/generate`, { auth: owner(id).token })
      if (a.status === 202) { ctx.ledger.accepted.add(id); ctx.ledger.toGenerate.delete(id); count(ctx, 'generate 202') }
      else if (a.status === 402) { ctx.ledger.unpaid++; ctx.ledger.toGenerate.delete(id) }
      else if (a.status === 403) { ctx.ledger.toGenerate.delete(id); count(ctx, 'generate 403 (already ready)') }
      else count(ctx, `generate tried again after ${a.status || a.error}`)
    }
    await sleep(500)
  }
}

/** each accepted report read until it ends; a ready one watched while its user may hold more */
export async function followUp (ctx: Context, until: () => boolean) {
  const owner = (id: string) => ctx.ledger.users.find((u) => u.reports.includes(id))!
  while (!until()) {
    const open = [...ctx.ledger.accepted].filter((id) => !ctx.ledger.final.has(id))
    for (const id of open.slice(0, 6)) {
      const user = owner(id)
      const a = await call(ctx.log, anyInstance(ctx.webs), 'GET', `/report/${id}`, { auth: user.token })
      if (a.status === 200 && (a.json.status === 'ready' || a.json.status === 'failed')) ctx.ledger.final.set(id, a.json.status)
    }
    if (ctx.running()) {
      const watchable = [...ctx.ledger.final].filter(([id, s]) => s === 'ready' && !ctx.ledger.watched.has(id) && owner(id).watches < WATCHES_PER_USER)
      for (const [id] of watchable.slice(0, 2)) {
        const user = owner(id)
        const w = await call(ctx.log, anyInstance(ctx.webs), 'POST', `/report/${id}/watch`, { auth: user.token, headers: { 'idempotency-key': `watch-${id}` } })
        if (w.status === 201 || w.status === 200) { ctx.ledger.watched.add(id); user.watches++; count(ctx, 'watches') }
      }
    }
    await sleep(1500)
  }
}

async function reads (ctx: Context) {
  while (ctx.running()) {
    await sleep(400)
    if (!ctx.ledger.users.length) continue
    const user = pick(ctx.ledger.users)
    const ready = user.reports.filter((id) => ctx.ledger.final.get(id) === 'ready')
    await call(ctx.log, anyInstance(ctx.webs), 'GET', ready.length ? `/report/${pick(ready)}` : '/auth/info', { auth: user.token })
  }
}

/** one probe of a revoked credential on every instance: whether it is refused */
export async function probe (ctx: Context, r: Revocation): Promise<Probe[]> {
  return await Promise.all(ctx.webs.map(async (web) => {
    const a = await call(ctx.log, web, 'GET', r.kind === 'session' ? '/auth/info' : '/report?limit=1', { auth: r.credential })
    return { kind: r.kind, at: Date.now(), instance: web.name, status: a.status }
  }))
}

async function revocations (ctx: Context) {
  while (ctx.running()) {
    await sleep(6000)
    if (!ctx.ledger.users.length) continue
    const user = pick(ctx.ledger.users)
    // a fresh sign-in: issuing a key and ending a session need a recent proof
    const first = await signIn(ctx, user.email)
    const second = await signIn(ctx, user.email)
    if (!first || !second) continue
    const issued = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/auth/api-keys', { auth: first, body: { name: 'chaos', scopes: ['reports:read'] } })
    if (issued.status !== 201) continue
    const key = String(issued.json.key)
    // both work before they are revoked
    const before = await Promise.all([
      call(ctx.log, anyInstance(ctx.webs), 'GET', '/report?limit=1', { auth: key }),
      call(ctx.log, anyInstance(ctx.webs), 'GET', '/auth/info', { auth: second })
    ])
    if (!before.every(ok)) count(ctx, 'revocation set-up not answered 2xx (skipped)')
    const done: Revocation[] = []
    const revokeKey = await call(ctx.log, anyInstance(ctx.webs), 'DELETE', `/auth/api-keys/${String(issued.json.id)}`, { auth: first })
    if (revokeKey.status === 204) done.push({ kind: 'api key', credential: key, at: Date.now() })
    const endSession = await call(ctx.log, anyInstance(ctx.webs), 'DELETE', `/auth/sessions/${sidOf(second)}`, { auth: first })
    if (endSession.status === 200) done.push({ kind: 'session', credential: second, at: Date.now() })
    ctx.ledger.revocations.push(...done)
    count(ctx, 'revocations')
    // the contract: refused on every instance within a second
    await sleep(1500)
    for (const r of done) ctx.ledger.probes.push(...await probe(ctx, r))
  }
}

/** the showcase's next month through POST /ingest, tried until it answers 200 */
export async function importNextMonth (ctx: Context): Promise<void> {
  const follows = await ctx.sql<ShowcaseFollow[]>`
    select f.profile_id as "profileId", f.account_id as "accountId", f.since::text as since, f.until::text as until
      from follows f join profiles p on p.id = f.profile_id where lower(p.username) = ${SHOWCASE.username}`
  const month = monthAfter(latestMonth(follows)!)
  const data = [...nextMonthLines(SEED, month, follows)].join('\n') + '\n'
  const record: ImportRecord = { month, sentAt: Date.now(), doneAt: 0, attempts: 0 }
  for (;;) {
    record.attempts++
    const a = await call(ctx.log, anyInstance(ctx.webs), 'POST', '/ingest', { auth: INGEST_TOKEN, raw: { type: 'application/x-ndjson', data } })
    if (a.status === 200) break
    await sleep(1000)
  }
  record.doneAt = Date.now()
  ctx.ledger.imports.push(record)
}

async function imports (ctx: Context, at: number[]) {
  for (const t of at) {
    while (ctx.running() && Date.now() < t) await sleep(500)
    if (!ctx.running()) return
    await importNextMonth(ctx)
  }
}

/**
 * The loops until `running()` turns false; generate calls and follow-up reads go on until
 * `settled()` (the drain after the faults).
 */
export async function runWorkload (ctx: Context, opts: { profiles: Array<{ source: string, username: string }>, importsAt: number[], settled: () => boolean }) {
  await Promise.all([
    accounts(ctx),
    reports(ctx, opts.profiles),
    generateCalls(ctx, opts.settled),
    followUp(ctx, opts.settled),
    reads(ctx),
    revocations(ctx),
    imports(ctx, opts.importsAt)
  ])
}

export type WorkloadContext = Context
