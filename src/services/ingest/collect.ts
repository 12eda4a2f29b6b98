// The first half of validation: one pass over the lines that keeps, per record type, only ids and the
// references to check later (never whole records). A record whose key came earlier replaces it (the
// last wins, see docs/decisions/ingest-and-demo.md, Ingest feeds): the earlier line is forgotten
// here and skipped by the write passes (its type turns 0), so the database sees one record per key,
// the last one, whatever the order of the write passes.
import { RECORD_TYPES, type IngestRecord, type RecordType } from '../../../schemas/ingest.ts'
import { Interner, LineBytes, PairTable } from './compact.ts'
import type { Line } from './lines.ts'

type Of<T extends RecordType> = Extract<IngestRecord, { type: T }>

const TYPE_CODE = Object.fromEntries(RECORD_TYPES.map((t, i) => [t, i + 1])) as Record<RecordType, number>

// Composite keys: NUL cannot occur in a valid id.
const SEP = '\u0000'
export const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

export class RecordIndex {
  /** line number -> why the line is invalid */
  readonly bad = new Map<number, string>()
  /** id -> line */
  readonly categories = new Map<string, number>()
  readonly redFlags = new Map<string, number>()
  readonly interests = new Map<string, { line: number, categoryId: string, redFlagId: string | null }>()
  readonly accounts = new Map<string, { line: number, interests: string[] }>()
  readonly profiles = new Map<string, { line: number, source: string, username: string }>()
  // follows and friendships refer to profiles and accounts by interned number (see compact.ts)
  readonly profileIds = new Interner()
  readonly accountIds = new Interner()
  readonly follows = new PairTable()
  readonly friends = new PairTable()
  readonly lineTypes = new LineBytes()
  /** valid records replaced by a later record of the same key */
  replaced = 0
  /** source + NUL + lower-case username -> profile id, while the lines are read */
  private readonly profileNames = new Map<string, string>()

  /** a line read (valid or not); the record it holds is kept when it can be */
  add (line: Line, parsed: { record?: IngestRecord, reason?: string } | null): void {
    if (line.text === null) {
      this.bad.set(line.no, line.error ?? 'unreadable line')
      return
    }
    if (!parsed) return
    if (parsed.reason !== undefined) {
      this.bad.set(line.no, parsed.reason)
      return
    }
    const r = parsed.record!
    const kept = this.keep(r, line.no)
    if (kept) this.lineTypes.set(line.no, TYPE_CODE[r.type])
  }

  /** every line is read: what only the pass needed is dropped */
  done (): void {
    this.profileNames.clear()
  }

  private keep (r: IngestRecord, no: number): boolean {
    switch (r.type) {
      case 'category': return this.category(r, no)
      case 'redflag': return this.redFlag(r, no)
      case 'interest': return this.interest(r, no)
      case 'account': return this.account(r, no)
      case 'profile': return this.profile(r, no)
      case 'follow': return this.follow(r, no)
      case 'friend': return this.friend(r, no)
    }
  }

  private supersede (line: number | undefined): void {
    if (!line) return
    this.lineTypes.set(line, 0)
    this.replaced++
  }

  private category (r: Of<'category'>, no: number): boolean {
    this.supersede(this.categories.get(r.id))
    this.categories.set(r.id, no)
    return true
  }

  private redFlag (r: Of<'redflag'>, no: number): boolean {
    this.supersede(this.redFlags.get(r.id))
    this.redFlags.set(r.id, no)
    return true
  }

  private interest (r: Of<'interest'>, no: number): boolean {
    this.supersede(this.interests.get(r.id)?.line)
    this.interests.set(r.id, { line: no, categoryId: r.categoryId, redFlagId: r.redFlagId ?? null })
    return true
  }

  private account (r: Of<'account'>, no: number): boolean {
    this.supersede(this.accounts.get(r.id)?.line)
    this.accounts.set(r.id, { line: no, interests: r.interests })
    return true
  }

  /** usernames are unique per source, case-insensitively (the lookup index of POST /report) */
  private profile (r: Of<'profile'>, no: number): boolean {
    const name = `${r.source}${SEP}${r.username.toLowerCase()}`
    const owner = this.profileNames.get(name)
    if (owner !== undefined && owner !== r.id) {
      this.bad.set(no, `duplicate username ${r.source}/${quote(r.username)} (first on line ${this.profiles.get(owner)!.line})`)
      return false
    }
    const first = this.profiles.get(r.id)
    if (first) {
      this.supersede(first.line)
      this.profileNames.delete(`${first.source}${SEP}${first.username.toLowerCase()}`)
    }
    this.profileNames.set(name, r.id)
    this.profiles.set(r.id, { line: no, source: r.source, username: r.username })
    return true
  }

  private follow (r: Of<'follow'>, no: number): boolean {
    this.supersede(this.follows.put(this.profileIds.intern(r.profileId), this.accountIds.intern(r.accountId), no))
    return true
  }

  /** one key for both orders of a pair */
  private friend (r: Of<'friend'>, no: number): boolean {
    const a = this.profileIds.intern(r.a)
    const b = this.profileIds.intern(r.b)
    this.supersede(a < b ? this.friends.put(a, b, no) : this.friends.put(b, a, no))
    return true
  }
}
