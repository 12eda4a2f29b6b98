// Raising alerts in batches (docs/decisions/watches-and-alerts.md, Watches and alerts).
// alert_pending is the queue: a worker claims up to `batchProfiles` marked profiles under a lease,
// loads what the engine needs for them in a few set-based queries, computes each profile's diffs
// outside any transaction (on PGlite a long transaction would stall every read), then in one
// transaction locks the watches of those profiles (a watch deleted meanwhile is gone, one being
// deleted waits), raises one alert per (watch, source, new month with a change), moves the seen
// months on and removes the pending rows whose version it computed. A worker that dies leaves its
// rows leased; after the lease another computes them again, and the alerts' unique key keeps a
// second copy out.
import { setImmediate as yieldToRequests } from 'node:timers/promises'
import { inArray, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { watches, watchProfiles } from '../../db/schema/index.ts'
import {
  dataMonthOf, formatMonth, parseMonth, profileDiffs, redFlagInterestIds, reportMonth, type AccountDef, type Dataset, type FollowDef, type Source
} from '../../engine/index.ts'
import type { DiffItem } from '../../../schemas/report.ts'
import type { EventPublisher } from '../events/transport.ts'
import { recordAlerts, type NewAlert, type RecordedAlert } from './record.ts'

/** profiles computed between two turns of the event loop */
const COMPUTE_SLICE = 25

export interface RaisingDeps {
  database: Database
  /** profiles claimed per batch (config.alerts.batchProfiles) */
  batchProfiles: number
  /** how long a claim keeps other workers off its profiles, in ms: longer than a batch takes */
  leaseMs: number
  /** config.webhooks.retryScheduleS: when the watch.alert deliveries are first due */
  webhookScheduleS: number[]
  /** where the alerts are announced: the process's events transport (NOTIFY in the transaction when not given) */
  events?: Pick<EventPublisher, 'staged'>
  now?: () => number
  log?: { warn: (o: object, m: string) => void }
}

export interface BatchResult {
  /** pending profiles claimed */
  claimed: number
  /** alerts inserted (a repeat of one raised before is not) */
  raised: RecordedAlert[]
}

export interface Claimed { profile_id: string, version: number }
interface ComputedProfile { username: string, source: Source, dataMonth: number, diffs: DiffItem[] }
interface Computed { profiles: Map<string, ComputedProfile>, redFlags: Set<string> }

// One parameter holding the whole array (a bare array in drizzle's sql`` is spread into a list), as
// text: postgres.js infers array element types badly otherwise; the SQL casts it.
const textArray = (values: ReadonlyArray<string | number>) => sql.param(values.map(String))

export function createAlertRaiser (deps: RaisingDeps) {
  const { database } = deps
  const now = () => new Date((deps.now ?? Date.now)())

  async function claim (): Promise<Claimed[]> {
    return await database.query<Claimed>(`
      update alert_pending set leased_until = now() + $2::int * interval '1 millisecond'
       where profile_id in (
         select profile_id from alert_pending
          where leased_until is null or leased_until < now()
          limit $1
          for update skip locked)
      returning profile_id, version`, [deps.batchProfiles, deps.leaseMs])
  }

  /** the diffs of each claimed profile some watch of which has a month still to see */
  async function compute (ids: string[], at: Date): Promise<Computed> {
    const q = database.query
    const [subjects, followRows, seen] = await Promise.all([
      q<{ id: string, source: string, username: string }>('select id, source, username from profiles where id = any($1::text[])', [ids]),
      q<{ profile_id: string, account_id: string, since: string, until: string | null }>(
        'select profile_id, account_id, since::text as since, until::text as until from follows where profile_id = any($1::text[])', [ids]),
      q<{ profile_id: string, seen: number }>('select profile_id, min(seen_month)::int as seen from watch_profiles where profile_id = any($1::text[]) group by profile_id', [ids])
    ])
    const followsOf = new Map<string, FollowDef[]>()
    for (const f of followRows) {
      let list = followsOf.get(f.profile_id)
      if (list === undefined) followsOf.set(f.profile_id, list = [])
      list.push({ accountId: f.account_id, since: f.since, until: f.until })
    }
    // as dataMonths() counts it: the latest month a follow names
    const dataMonth = new Map([...followsOf].map(([id, list]) => [id, dataMonthOf(list)]))
    const minSeen = new Map(seen.map((r) => [r.profile_id, r.seen]))
    const wanted = subjects.filter((p) => (dataMonth.get(p.id) ?? -Infinity) > (minSeen.get(p.id) ?? Infinity))
    const out = new Map<string, ComputedProfile>()
    if (wanted.length === 0) return { profiles: out, redFlags: new Set() }
    const wantedIds = wanted.map((p) => p.id)

    const [accountRows, categories, redFlags, interests] = await Promise.all([
      q<{ id: string, interests: string[] | null }>(
        `select a.id, (select array_agg(ai.interest_id order by ai.interest_id) from account_interests ai where ai.account_id = a.id) as interests
           from accounts a where a.id in (select distinct account_id from follows where profile_id = any($1::text[]))`, [wantedIds]),
      q<{ id: string, name: string, synthetic: boolean }>('select id, name, synthetic from categories'),
      q<{ id: string, label: string }>('select id, label from red_flags'),
      q<{ id: string, name: string, category_id: string, red_flag_id: string | null }>('select id, name, category_id, red_flag_id from interests')
    ])
    // only interests matter to the diffs: an account's names and image are left empty
    const accounts: AccountDef[] = accountRows.map((a) => ({ id: a.id, username: '', fullname: '', image: null, interests: a.interests ?? [] }))
    const dataset: Dataset = {
      categories,
      redFlags,
      interests: interests.map((i) => ({ id: i.id, name: i.name, categoryId: i.category_id, redFlagId: i.red_flag_id })),
      accounts
    }
    for (const [n, p] of wanted.entries()) {
      // a batch computes in slices: requests this process serves meanwhile wait for one slice, not the batch
      if (n > 0 && n % COMPUTE_SLICE === 0) await yieldToRequests()
      const last = dataMonth.get(p.id)!
      const profile = { id: p.id, source: p.source as Source, username: p.username, fullname: '', image: null, link: '', follows: followsOf.get(p.id) ?? [] }
      // the month a report generated now covers (the engine's one rule): the alert's month is one it shows
      const diffs = profileDiffs({ dataset, profile, month: formatMonth(reportMonth(at, [profile])) })
      out.set(p.id, { username: p.username, source: p.source as Source, dataMonth: last, diffs })
    }
    return { profiles: out, redFlags: redFlagInterestIds(dataset) }
  }

  /** the batch's alerts, seen months and pending rows, in one transaction */
  async function commit (claimed: Claimed[], { profiles: computed, redFlags }: Computed, at: Date): Promise<RecordedAlert[]> {
    // a broker's announcements leave after the commit (a NOTIFY's with it)
    let afterCommit = async (): Promise<void> => {}
    const stage = deps.events && (async (tx: Db, channel: string, payloads: string[]) => { afterCommit = await deps.events!.staged(tx, channel, payloads) })
    const raised = await database.db.transaction(async (tx) => {
      let raised: RecordedAlert[] = []
      const ids = [...computed.keys()]
      if (ids.length > 0) {
        // locked in id order: a watch deleted since the computation is gone here, one being deleted now waits for this commit
        const rows = await tx.select({
          watchId: watchProfiles.watchId, source: watchProfiles.source, profileId: watchProfiles.profileId, seenMonth: watchProfiles.seenMonth,
          userId: watches.userId, reportId: watches.reportId
        }).from(watches).innerJoin(watchProfiles, sql`${watchProfiles.watchId} = ${watches.id}`)
          .where(inArray(watchProfiles.profileId, ids)).orderBy(watches.id).for('key share', { of: watches })
        const list: NewAlert[] = []
        const moved: Array<[string, string, number]> = []
        for (const w of rows) {
          const c = computed.get(w.profileId)!
          if (c.dataMonth <= w.seenMonth) continue
          moved.push([w.watchId, w.source, c.dataMonth])
          for (const d of c.diffs) {
            const month = parseMonth(d.date)
            if (month <= w.seenMonth || month > c.dataMonth || (d.new.length === 0 && d.lost.length === 0)) continue
            list.push({
              userId: w.userId, watchId: w.watchId, reportId: w.reportId, source: w.source as Source, profileId: w.profileId,
              username: c.username, month: d.date, new: d.new, lost: d.lost, newRedFlags: d.new.filter((i) => redFlags.has(i.id))
            })
          }
        }
        // oldest month first, so a user's seq follows the months of one profile
        list.sort((a, b) => a.month < b.month ? -1 : a.month > b.month ? 1 : 0)
        raised = await recordAlerts(tx, list, at, deps.webhookScheduleS, stage)
        if (moved.length > 0) {
          await tx.execute(sql`update ${watchProfiles} wp set seen_month = x.m
            from unnest(${textArray(moved.map((m) => m[0]))}::uuid[], ${textArray(moved.map((m) => m[1]))}::text[], ${textArray(moved.map((m) => m[2]))}::int[]) as x(w, s, m)
            where wp.watch_id = x.w and wp.source = x.s and wp.seen_month < x.m`)
        }
      }
      await tx.execute(sql`delete from alert_pending p
        using unnest(${textArray(claimed.map((c) => c.profile_id))}::text[], ${textArray(claimed.map((c) => c.version))}::int[]) as x(id, v)
        where p.profile_id = x.id and p.version = x.v`)
      return raised
    })
    try {
      await afterCommit()
    } catch (err) {
      // the alerts are committed: a stream that missed this announcement reads them at the next one,
      // or when its instance's broker connection comes back
      deps.log?.warn({ err: { message: (err as Error).message } }, 'alerts raised but not announced to the events broker')
    }
    return raised
  }

  /** compute a claimed batch and raise its alerts */
  async function raise (claimed: Claimed[]): Promise<BatchResult> {
    if (claimed.length === 0) return { claimed: 0, raised: [] }
    const at = now()
    const computed = await compute(claimed.map((c) => c.profile_id), at)
    return { claimed: claimed.length, raised: await commit(claimed, computed, at) }
  }

  return {
    /** the next batch of pending profiles, leased to this worker, each with the version it was claimed at */
    claim,
    raise,
    /** claim one batch, compute it and raise its alerts; `claimed: 0` when nothing was pending */
    async runBatch (): Promise<BatchResult> { return await raise(await claim()) }
  }
}

export type AlertRaiser = ReturnType<typeof createAlertRaiser>
