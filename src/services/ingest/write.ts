// The write passes of an import, in one transaction: the input is streamed again per level of the
// foreign keys (taxonomy roots, accounts and profiles; then interests, follows, friendships; then
// the interests of each account), and written with multi-row upserts. An unchanged row is not
// rewritten, so re-importing a file changes nothing.
// The validation pass has checked every line already: a write pass only parses the lines of the
// types it writes (it knows each line's type), and refuses an input whose lines are not the ones
// validated (their digest). While one batch is being written, the next one is being read.
import type { Database } from '../../db/client.ts'
import { IMPORT_LOCK } from '../../db/locks.ts'
import { RECORD_TYPES, type AccountRecord, type IngestRecord, type RecordType } from '../../../schemas/ingest.ts'
import type { LineBytes } from './compact.ts'
import type { LineSource } from './lines.ts'
import { newDigest, updateDigest } from './validate.ts'

type Row = Record<string, unknown>
type Query = (text: string, params?: unknown[]) => Promise<Row[]>

const BATCH_ROWS = 1000

async function inTransaction<T> (database: Database, fn: (query: Query) => Promise<T>): Promise<T> {
  if (database.sql) {
    return await database.sql.begin((tx) => fn(async (text, params) => await tx.unsafe(text, params as never[]) as unknown as Row[])) as T
  }
  if (database.pglite) return await database.pglite.transaction((tx) => fn(async (text, params) => (await tx.query<Row>(text, params)).rows))
  throw new Error('the database offers no transactions')
}

// Every parameter goes as a text[] (postgres.js infers element types badly otherwise) and is cast in SQL.
// `marks`: the upsert marks the watched profiles it changed (countedMarking).
const UPSERT: Record<RecordType, { columns: number, sql: string, marks?: boolean }> = {
  category: {
    columns: 3,
    sql: `insert into categories (id, name, synthetic)
          select id, name, synthetic::boolean from unnest($1::text[], $2::text[], $3::text[]) as x(id, name, synthetic)
          on conflict (id) do update set name = excluded.name, synthetic = excluded.synthetic
          where (categories.name, categories.synthetic) is distinct from (excluded.name, excluded.synthetic)`
  },
  redflag: {
    columns: 2,
    sql: `insert into red_flags (id, label)
          select * from unnest($1::text[], $2::text[]) as x(id, label)
          on conflict (id) do update set label = excluded.label
          where red_flags.label is distinct from excluded.label`
  },
  interest: {
    columns: 4,
    sql: `insert into interests (id, name, category_id, red_flag_id)
          select * from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as x(id, name, category_id, red_flag_id)
          on conflict (id) do update set name = excluded.name, category_id = excluded.category_id, red_flag_id = excluded.red_flag_id
          where (interests.name, interests.category_id, interests.red_flag_id)
                is distinct from (excluded.name, excluded.category_id, excluded.red_flag_id)`
  },
  account: {
    columns: 5,
    sql: `insert into accounts (id, source, username, fullname, image)
          select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) as x(id, source, username, fullname, image)
          on conflict (id) do update set source = excluded.source, username = excluded.username,
            fullname = excluded.fullname, image = excluded.image
          where (accounts.source, accounts.username, accounts.fullname, accounts.image)
                is distinct from (excluded.source, excluded.username, excluded.fullname, excluded.image)`
  },
  profile: {
    columns: 6,
    sql: `insert into profiles (id, source, username, fullname, image, link)
          select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
            as x(id, source, username, fullname, image, link)
          on conflict (id) do update set source = excluded.source, username = excluded.username,
            fullname = excluded.fullname, image = excluded.image, link = excluded.link
          where (profiles.source, profiles.username, profiles.fullname, profiles.image, profiles.link)
                is distinct from (excluded.source, excluded.username, excluded.fullname, excluded.image, excluded.link)`
  },
  follow: {
    columns: 4,
    marks: true,
    sql: `insert into follows (profile_id, account_id, since, until)
          select profile_id, account_id, since::date, until::date
            from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as x(profile_id, account_id, since, until)
          on conflict (profile_id, account_id) do update set since = excluded.since, until = excluded.until
          where (follows.since, follows.until) is distinct from (excluded.since, excluded.until)`
  },
  // one row per unordered pair (a < b); a pair stored the other way round by someone else counts too
  friend: {
    columns: 2,
    sql: `insert into friendships (a, b)
          select x.a, x.b from unnest($1::text[], $2::text[]) as x(a, b)
           where not exists (select 1 from friendships f where f.a = x.b and f.b = x.a)
          on conflict do nothing`
  }
}

/**
 * The upsert, answering how many of its rows it inserted and how many it changed (the rest were
 * already as given). A row an upsert inserts has no xmax; one it updates carries the lock of this
 * transaction in xmax: PostgreSQL's own way to tell them apart in one statement.
 */
const counted = (upsert: string) => `
  with w as (${upsert} returning (xmax = 0) as inserted)
  select count(*) filter (where inserted)::int as inserted, count(*) filter (where not inserted)::int as updated from w`

// The follow upsert also marks the watched profiles whose follows it inserted or changed, for the
// alert worker (docs/decisions/watches-and-alerts.md, Watches and alerts): in this transaction, so
// the mark commits with the data or not at all, and each further change moves `version` on and ends
// a worker's lease. The join reads watch_profiles by its profile index: with nothing watched it
// costs one empty probe per batch.
const countedMarking = (upsert: string) => `
  with w as (${upsert} returning profile_id, (xmax = 0) as inserted),
  marked as (
    insert into alert_pending (profile_id)
    select distinct w.profile_id from w join watch_profiles wp on wp.profile_id = w.profile_id
    on conflict (profile_id) do update set version = alert_pending.version + 1, leased_until = null)
  select count(*) filter (where inserted)::int as inserted, count(*) filter (where not inserted)::int as updated from w`

// An account's interest set is replaced: the pairs the input no longer lists go, the new ones come.
// An account whose set changed counts as updated, unless its row was written by this transaction
// already (then it counted as inserted or updated when it was: its xmin is this transaction's).
const ACCOUNT_INTERESTS = `
  with gone as (
    delete from account_interests ai
     where ai.account_id = any($1::text[])
       and not exists (select 1 from unnest($2::text[], $3::text[]) as x(account_id, interest_id)
                        where x.account_id = ai.account_id and x.interest_id = ai.interest_id)
    returning ai.account_id),
  came as (
    insert into account_interests (account_id, interest_id)
    select * from unnest($2::text[], $3::text[]) as x(account_id, interest_id)
    on conflict do nothing
    returning account_id),
  changed as (select account_id from gone union select account_id from came)
  select count(*)::int as updated
    from changed c join accounts a on a.id = c.account_id
   where not (a.xmin = pg_current_xact_id()::xid)`

export interface Tally { inserted: number, updated: number, unchanged: number }
export type Summary = Record<RecordType, Tally>

export const emptySummary = (): Summary =>
  Object.fromEntries(RECORD_TYPES.map((t) => [t, { inserted: 0, updated: 0, unchanged: 0 }])) as Summary

function row (r: IngestRecord): (string | null)[] {
  switch (r.type) {
    case 'category': return [r.id, r.name, String(r.synthetic)]
    case 'redflag': return [r.id, r.label]
    case 'interest': return [r.id, r.name, r.categoryId, r.redFlagId ?? null]
    case 'account': return [r.id, r.source, r.username, r.fullname, r.image ?? null]
    case 'profile': return [r.id, r.source, r.username, r.fullname, r.image ?? null, r.link]
    case 'follow': return [r.profileId, r.accountId, r.since, r.until ?? null]
    case 'friend': return r.a < r.b ? [r.a, r.b] : [r.b, r.a]
  }
}

class UpsertBuffer {
  private columns: (string | null)[][]
  private size = 0
  private readonly sql: string
  private readonly width: number
  private readonly tally: Tally
  constructor (spec: { columns: number, sql: string, marks?: boolean }, tally: Tally) {
    this.sql = spec.marks === true ? countedMarking(spec.sql) : counted(spec.sql)
    this.width = spec.columns
    this.tally = tally
    this.columns = this.empty()
  }

  private empty () { return Array.from({ length: this.width }, () => [] as (string | null)[]) }

  /** true when the buffer is full and wants a flush */
  add (values: (string | null)[]): boolean {
    for (let i = 0; i < this.width; i++) this.columns[i].push(values[i])
    return ++this.size >= BATCH_ROWS
  }

  flush (query: Query): Promise<unknown> | undefined {
    if (!this.size) return undefined
    const [params, sent] = [this.columns, this.size]
    this.columns = this.empty()
    this.size = 0
    return query(this.sql, params).then(([r]) => {
      const inserted = Number(r.inserted)
      const updated = Number(r.updated)
      this.tally.inserted += inserted
      this.tally.updated += updated
      this.tally.unchanged += sent - inserted - updated
    })
  }
}

class AccountInterestBuffer {
  private readonly tally: Tally
  constructor (tally: Tally) { this.tally = tally }
  private accounts: string[] = []
  private pairs: [string[], string[]] = [[], []]
  add (r: AccountRecord): boolean {
    this.accounts.push(r.id)
    for (const i of r.interests) {
      this.pairs[0].push(r.id)
      this.pairs[1].push(i)
    }
    return this.accounts.length >= BATCH_ROWS || this.pairs[0].length >= 5 * BATCH_ROWS
  }

  flush (query: Query): Promise<unknown> | undefined {
    if (!this.accounts.length) return undefined
    const [accounts, [a, i]] = [this.accounts, this.pairs]
    this.accounts = []
    this.pairs = [[], []]
    return query(ACCOUNT_INTERESTS, [accounts, a, i]).then(([r]) => {
      const updated = Number(r.updated)
      this.tally.updated += updated
      this.tally.unchanged -= updated
    })
  }
}

/**
 * At most one statement in flight: the next batch is parsed while the database writes this one.
 * Each write is awaited before the next is sent, so a failure surfaces at once, in order.
 */
class InFlight {
  private pending: Promise<unknown> | undefined
  async send (write: Promise<unknown> | undefined) {
    await this.drain()
    this.pending = write
    // a failure before the next send() or drain() must not count as unhandled
    write?.catch(() => {})
  }

  async drain () {
    const p = this.pending
    this.pending = undefined
    await p
  }
}

/** the write passes, each streaming the input once; the types each one writes */
export const WRITE_PASSES: RecordType[][] = [
  ['category', 'redflag', 'account', 'profile'],
  ['interest', 'follow', 'friend'],
  ['account'] // its interests, now that every interest exists
]

export interface WriteOptions {
  /** the input's invalid lines: skipped */
  bad: ReadonlyMap<number, string>
  /** the record type of each line, as validated */
  lineTypes: LineBytes
  /** the digest of the validated lines */
  digest: string
  /** which passes have something to write */
  passes: number[]
  onPass?: (index: number) => void
  onOffset?: (offset: number, line: number) => void
}

/** writes the input; what it changed, per record type */
export async function writeSource (database: Database, source: LineSource, opts: WriteOptions): Promise<Summary> {
  const summary = emptySummary()
  await inTransaction(database, async (query) => {
    await query('select pg_advisory_xact_lock($1::bigint)', [String(IMPORT_LOCK)])
    for (const [n, pass] of opts.passes.entries()) {
      opts.onPass?.(n)
      const types = new Set(WRITE_PASSES[pass])
      const wanted = new Uint8Array(RECORD_TYPES.length + 1)
      RECORD_TYPES.forEach((t, i) => { wanted[i + 1] = types.has(t) ? 1 : 0 })
      const interestsOfAccounts = pass === 2
      const buffers = new Map<RecordType, UpsertBuffer>()
      const accountInterests = new AccountInterestBuffer(summary.account)
      for (const t of types) buffers.set(t, new UpsertBuffer(UPSERT[t], summary[t]))
      const inFlight = new InFlight()
      const digest = newDigest()
      for await (const batch of source.open()) {
        updateDigest(digest, batch)
        for (const line of batch) {
          opts.onOffset?.(line.offset, line.no)
          if (line.text === null || !wanted[opts.lineTypes.get(line.no)] || opts.bad.has(line.no)) continue
          let r: IngestRecord
          try {
            r = JSON.parse(line.text) as IngestRecord
          } catch {
            r = { type: 'unreadable' } as unknown as IngestRecord
          }
          // the input was valid a moment ago: a change under our feet aborts the whole import
          if (!types.has(r.type)) throw new Error(`line ${line.no} changed during the import`)
          if (interestsOfAccounts) {
            if (accountInterests.add(r as AccountRecord)) await inFlight.send(accountInterests.flush(query))
          } else {
            const buffer = buffers.get(r.type)!
            if (buffer.add(row(r))) await inFlight.send(buffer.flush(query))
          }
        }
      }
      if (interestsOfAccounts) await inFlight.send(accountInterests.flush(query))
      else for (const b of buffers.values()) await inFlight.send(b.flush(query))
      await inFlight.drain()
      // lines of the same length but other content: nothing of this transaction is committed
      if (digest.digest('base64') !== opts.digest) throw new Error('the input changed during the import')
    }
  })
  return summary
}
