// The books after the chaos run, read from the database, the receiver and the run's own records:
// each invariant of docs/reliability.md (Chaos run) with its counts and whether it holds.
import type { CallLog } from './client.ts'
import { describeExit, FREE_REPORTS, type Cluster } from './cluster.ts'
import { databaseFault, type FaultRecord } from './faults.ts'
import type { Received } from './receiver.ts'
import type { Ledger, Probe } from './workload.ts'

/** seconds after a database fault ends during which a 503 still counts as the fault's */
export const DATABASE_GRACE_S = 20

export interface Invariant { name: string, holds: boolean, counts: Record<string, number>, examples: string[] }

interface Inputs { cluster: Cluster, ledger: Ledger, received: Received[], log: CallLog, faults: FaultRecord[], finalProbes: Probe[] }

const emailPattern = () => `chaos-${process.pid}-%@example.com`

async function generations ({ cluster, ledger }: Inputs): Promise<Invariant[]> {
  const ids = [...ledger.accepted]
  const rows = await cluster.sql<Array<{ id: string, status: string, credit_held: boolean }>>`
    select id, status, credit_held from reports where id = any(${ids}::uuid[])`
  const ready = rows.filter((r) => r.status === 'ready').length
  const refunded = rows.filter((r) => r.status === 'failed' && !r.credit_held).length
  const open = rows.filter((r) => !(r.status === 'ready' || (r.status === 'failed' && !r.credit_held)))
  const [books] = await cluster.sql<Array<{ spent: number, generated: number, held: number, stuck: number }>>`
    select (select coalesce(sum(${FREE_REPORTS} - report_credits), 0)::int from users where email like ${emailPattern()}) as spent,
           (select count(*)::int from reports r join users u on u.id = r.user_id where u.email like ${emailPattern()} and r.status = 'ready') as generated,
           (select count(*)::int from reports r join users u on u.id = r.user_id where u.email like ${emailPattern()} and r.credit_held) as held,
           (select count(*)::int from reports r join users u on u.id = r.user_id where u.email like ${emailPattern()} and r.status in ('queued', 'generating')) as stuck`
  return [{
    name: 'every 202 to generate ended ready, or failed with its credit returned',
    holds: open.length === 0 && rows.length === ids.length,
    counts: { accepted202: ids.length, ready, failedRefunded: refunded, notEnded: open.length + ids.length - rows.length },
    examples: open.slice(0, 5).map((r) => `${r.id}: ${r.status}${r.credit_held ? ', credit held' : ''}`)
  }, {
    name: 'credits spent equal reports generated',
    holds: books.spent === books.generated && books.held === 0,
    counts: { creditsSpent: books.spent, reportsGenerated: books.generated, creditsHeld: books.held, reportsQueuedOrGenerating: books.stuck },
    examples: []
  }]
}

async function webhooks ({ cluster, received }: Inputs): Promise<Invariant> {
  const rows = await cluster.sql<Array<{ id: string, endpoints: number }>>`
    select r.id, (select count(*)::int from webhook_endpoints e
                   where e.user_id = r.user_id and 'report.ready' = any(e.events) and e.disabled_at is null) as endpoints
      from reports r join users u on u.id = r.user_id where u.email like ${emailPattern()} and r.status = 'ready'`
  const ids = new Map<string, Set<string>>()
  let requests = 0
  for (const m of received) {
    if (m.type !== 'report.ready' || !m.reportId) continue
    requests++
    const set = ids.get(m.reportId) ?? new Set()
    set.add(m.webhookId)
    ids.set(m.reportId, set)
  }
  const missing = rows.filter((r) => (ids.get(r.id)?.size ?? 0) < r.endpoints)
  const extra = rows.filter((r) => (ids.get(r.id)?.size ?? 0) > r.endpoints)
  const distinct = [...ids.values()].reduce((n, s) => n + s.size, 0)
  const [pending] = await cluster.sql<Array<{ n: number }>>`select count(*)::int as n from webhook_deliveries where status <> 'delivered'`
  return {
    name: "every ready report's report.ready reached its endpoint with one webhook-id",
    holds: missing.length === 0 && extra.length === 0,
    counts: {
      readyReports: rows.length,
      deliveredWithOneId: rows.length - missing.length - extra.length,
      missing: missing.length,
      moreThanOneId: extra.length,
      requestsReceived: requests,
      distinctWebhookIds: distinct,
      retriesOfTheSameId: requests - distinct,
      deliveriesNotDelivered: pending.n
    },
    examples: [...missing, ...extra].slice(0, 5).map((r) => `${r.id}: ${ids.get(r.id)?.size ?? 0} ids for ${r.endpoints} endpoints`)
  }
}

async function alerts ({ cluster, ledger }: Inputs): Promise<Invariant> {
  const watches = await cluster.sql<Array<{ id: string, created: Date, sources: string[] }>>`
    select w.id, w.created_at as created, array_agg(p.source) as sources
      from watches w join watch_profiles p on p.watch_id = w.id group by w.id`
  const raised = await cluster.sql<Array<{ watch_id: string, source: string, month: string, n: number }>>`
    select watch_id, source, month, count(*)::int as n from alerts group by watch_id, source, month`
  const byKey = new Map(raised.map((a) => [`${a.watch_id}/${a.source}/${a.month}`, a.n]))
  const [pending] = await cluster.sql<Array<{ n: number }>>`select count(*)::int as n from alert_pending`
  let expected = 0
  let once = 0
  let ambiguous = 0
  const missing: string[] = []
  for (const imp of ledger.imports) {
    for (const w of watches) {
      const t = w.created.getTime()
      // a watch made while the import was being sent and retried may have seen its month already
      if (t >= imp.sentAt && t <= imp.doneAt) { ambiguous++; continue }
      if (t > imp.doneAt) continue
      for (const source of w.sources) {
        expected++
        const n = byKey.get(`${w.id}/${source}/${imp.month}`) ?? 0
        if (n === 1) once++
        else missing.push(`watch ${w.id} ${source} ${imp.month}: ${n} alerts`)
      }
    }
  }
  const duplicates = raised.filter((a) => a.n > 1).length
  return {
    name: 'every alert raised once (one per watch, source and month)',
    holds: missing.length === 0 && duplicates === 0 && pending.n === 0,
    counts: { imports: ledger.imports.length, watches: watches.length, expected, raisedOnce: once, missing: missing.length, duplicates, watchesMadeDuringAnImport: ambiguous, profilesStillPending: pending.n, alertsInAll: raised.reduce((n, a) => n + a.n, 0) },
    examples: missing.slice(0, 5)
  }
}

function revocations ({ ledger, finalProbes }: Inputs): Invariant {
  const alive = (p: Probe) => p.status >= 200 && p.status < 300
  const during = ledger.probes.filter(alive)
  const after = finalProbes.filter(alive)
  const refusedWith = (ps: Probe[]) => ps.filter((p) => p.status === 401).length
  return {
    name: 'no session or key alive after its revocation',
    holds: during.length === 0 && after.length === 0,
    counts: {
      sessionsEnded: ledger.revocations.filter((r) => r.kind === 'session').length,
      keysRevoked: ledger.revocations.filter((r) => r.kind === 'api key').length,
      probesDuringRun: ledger.probes.length,
      refused401DuringRun: refusedWith(ledger.probes),
      aliveDuringRun: during.length,
      probesAtEnd: finalProbes.length,
      aliveAtEnd: after.length
    },
    examples: [...during, ...after].slice(0, 5).map((p) => `${p.kind} answered ${p.status} on ${p.instance}`)
  }
}

function serverErrors ({ log, faults }: Inputs): Invariant {
  const windows = faults.filter((f) => databaseFault(f.kind)).map((f) => [f.start, f.end + DATABASE_GRACE_S * 1000])
  const inWindow = (at: number) => windows.some(([a, b]) => at >= a && at <= b)
  const not503 = log.serverErrors.filter((e) => e.status !== 503)
  const stray503 = log.serverErrors.filter((e) => e.status === 503 && !inWindow(e.at))
  return {
    name: `no 5xx but 503, and 503 only while the database was away (or within ${DATABASE_GRACE_S} s of its return)`,
    holds: not503.length === 0 && stray503.length === 0,
    counts: {
      answers: log.answers,
      noAnswer: log.noAnswer,
      answered503InDatabaseFault: log.serverErrors.filter((e) => e.status === 503).length - stray503.length,
      answered503Otherwise: stray503.length,
      answered5xxNot503: not503.length
    },
    examples: [...not503, ...stray503].slice(0, 5).map((e) => `${new Date(e.at).toISOString().slice(11, 23)} ${e.instance} ${e.call} ${e.status} ${e.body}`)
  }
}

function processes ({ cluster, faults }: Inputs): Invariant {
  const failed = faults.filter((f) => !f.recovered)
  return {
    name: 'every process killed came back, none died by itself',
    holds: cluster.unexpectedExits.length === 0 && failed.length === 0,
    counts: { faults: faults.length, notRecovered: failed.length, exitedByThemselves: cluster.unexpectedExits.length },
    examples: [...cluster.unexpectedExits.map(describeExit), ...failed.map((f) => `${f.kind}: ${f.note}`)].slice(0, 5)
  }
}

export async function checkBooks (inputs: Inputs): Promise<Invariant[]> {
  return [
    ...await generations(inputs),
    await webhooks(inputs),
    await alerts(inputs),
    revocations(inputs),
    serverErrors(inputs),
    processes(inputs)
  ]
}

export function printBooks (invariants: Invariant[]): void {
  for (const inv of invariants) {
    console.log(`  ${inv.holds ? 'HOLDS ' : 'FAILS '} ${inv.name}`)
    console.log(`         ${Object.entries(inv.counts).map(([k, v]) => `${k} ${v}`).join(', ')}`)
    for (const e of inv.examples) console.log(`         e.g. ${e}`)
  }
}
