// The write passes of an import, in one transaction: the input is streamed again per level of the
// foreign keys (taxonomy roots, accounts and profiles; then interests, follows, friendships; then
// the interests of each account), and written with multi-row upserts. An unchanged row is not
// rewritten, so re-importing a file changes nothing.
// The validation pass has checked every line already: a write pass only parses the lines of the
// types it writes (it knows each line's type), and refuses an input whose lines are not the ones
// validated (their digest). While one batch is being written, the next one is being read.
import type { Database } from '../../db/client.ts'
import { RECORD_TYPES, type AccountRecord, type IngestRecord, type RecordType } from '../../../schemas/ingest.ts'
import type { LineBytes } from './compact.ts'
import type { LineSource } from './lines.ts'
import { newDigest, updateDigest } from './validate.ts'

type Query = (text: string, params?: unknown[]) => Promise<unknown>

const BATCH_ROWS = 1000
// Any constant: concurrent imports queue behind each other instead of deadlocking on the same rows.
const IMPORT_LOCK = 7_410_551_923

async function inTransaction<T> (database: Database, fn: (query: Query) => Promise<T>): Promise<T> {
  if (database.sql) {
    return await database.sql.begin((tx) => fn((text, params) => tx.unsafe(text, params as never[]))) as T
  }
  if (database.pglite) return await database.pglite.transaction((tx) => fn((text, params) => tx.query(text, params)))
  throw new Error('the database offers no transactions')
}

// Every parameter goes as a text[] (postgres.js infers element types badly otherwise) and is cast in SQL.
const UPSERT: Record<RecordType, { columns: number, sql: string }> = {
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

// An account's interest set is replaced: the pairs the input no longer lists go, the new ones come.
const ACCOUNT_INTERESTS_DELETE = `
  delete from account_interests ai
   where ai.account_id = any($1::text[])
     and not exists (select 1 from unnest($2::text[], $3::text[]) as x(account_id, interest_id)
                      where x.account_id = ai.account_id and x.interest_id = ai.interest_id)`
const ACCOUNT_INTERESTS_INSERT = `
  insert into account_interests (account_id, interest_id)
  select * from unnest($1::text[], $2::text[]) as x(account_id, interest_id)
  on conflict do nothing`

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
  constructor (spec: { columns: number, sql: string }) {
    this.sql = spec.sql
    this.width = spec.columns
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
    const params = this.columns
    this.columns = this.empty()
    this.size = 0
    return query(this.sql, params)
  }
}

class AccountInterestBuffer {
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
    return (async () => {
      await query(ACCOUNT_INTERESTS_DELETE, [accounts, a, i])
      if (a.length) await query(ACCOUNT_INTERESTS_INSERT, [a, i])
    })()
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
  onOffset?: (offset: number) => void
}

export async function writeSource (database: Database, source: LineSource, opts: WriteOptions): Promise<void> {
  await inTransaction(database, async (query) => {
    await query('select pg_advisory_xact_lock($1::bigint)', [String(IMPORT_LOCK)])
    for (const [n, pass] of opts.passes.entries()) {
      opts.onPass?.(n)
      const types = new Set(WRITE_PASSES[pass])
      const wanted = new Uint8Array(RECORD_TYPES.length + 1)
      RECORD_TYPES.forEach((t, i) => { wanted[i + 1] = types.has(t) ? 1 : 0 })
      const interestsOfAccounts = pass === 2
      const buffers = new Map<RecordType, UpsertBuffer>()
      const accountInterests = new AccountInterestBuffer()
      for (const t of types) buffers.set(t, new UpsertBuffer(UPSERT[t]))
      const inFlight = new InFlight()
      const digest = newDigest()
      for await (const batch of source.open()) {
        updateDigest(digest, batch)
        for (const line of batch) {
          opts.onOffset?.(line.offset)
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
}
