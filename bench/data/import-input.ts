// Generated input for scenario 8: N NDJSON lines (DESIGN 5) and, from the same records, one
// COPY text file per table holding exactly the rows the import writes. Deterministic, streamed to
// disk (never whole in memory). Mix for N lines: the taxonomy (446), 5 % accounts (0 to 3
// interests each), 2 % profiles, 5 % friendships, the rest follows. With repeats r, a share r of
// the lines are earlier versions of a follow (another until) or of a friendship (the other order),
// each just before the record that replaces it; the COPY files hold the last versions, what the
// import must end with.
import { createWriteStream, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { mulberry32 } from '../../src/services/demo/data.ts'

const SOURCES = ['ig', 'fb', 'tt', 'tw', 'li'] as const

/** the tables COPY fills, parents first, with their columns in file order */
export const COPY_TABLES: Array<{ table: string, columns: string[] }> = [
  { table: 'categories', columns: ['id', 'name', 'synthetic'] },
  { table: 'red_flags', columns: ['id', 'label'] },
  { table: 'interests', columns: ['id', 'name', 'category_id', 'red_flag_id'] },
  { table: 'accounts', columns: ['id', 'source', 'username', 'fullname', 'image'] },
  { table: 'account_interests', columns: ['account_id', 'interest_id'] },
  { table: 'profiles', columns: ['id', 'source', 'username', 'fullname', 'image', 'link'] },
  { table: 'follows', columns: ['profile_id', 'account_id', 'since', 'until'] },
  { table: 'friendships', columns: ['a', 'b'] }
]

export interface ImportInput {
  ndjson: string
  lines: number
  bytes: number
  /** table -> COPY text file */
  copyFiles: Record<string, string>
  /** table -> rows */
  rows: Record<string, number>
}

class Out {
  private buf = ''
  bytes = 0
  private readonly stream: WriteStream
  constructor (stream: WriteStream) { this.stream = stream }
  async write (s: string) {
    this.buf += s
    if (this.buf.length >= 1 << 16) await this.flush()
  }

  async flush () {
    if (!this.buf) return
    this.bytes += Buffer.byteLength(this.buf)
    if (!this.stream.write(this.buf)) await once(this.stream, 'drain')
    this.buf = ''
  }

  async end () {
    await this.flush()
    this.stream.end()
    await once(this.stream, 'finish')
  }
}

// COPY text format: tab-separated, \N for null; the generated values hold no tab, newline or backslash
const copyLine = (values: Array<string | null>) => values.map((v) => v === null ? '\\N' : v).join('\t') + '\n'

function date (month: number, day: number): string {
  const y = Math.floor(month / 12)
  return `${y}-${String(month - y * 12 + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

export async function writeImportInput (dir: string, lines: number, repeats = 0, seed = 8): Promise<ImportInput> {
  const rnd = mulberry32(seed)
  const int = (n: number) => Math.floor(rnd() * n)
  const name = `import-${lines}${repeats ? `-r${repeats}` : ''}`
  const nd = new Out(createWriteStream(join(dir, `${name}.ndjson`)))
  const copy: Record<string, Out> = {}
  const copyFiles: Record<string, string> = {}
  const rows: Record<string, number> = {}
  for (const { table } of COPY_TABLES) {
    copyFiles[table] = join(dir, `${name}.${table}.copy`)
    copy[table] = new Out(createWriteStream(copyFiles[table]))
    rows[table] = 0
  }
  let written = 0
  const emit = async (record: Record<string, unknown>, table: string, values: Array<string | null>) => {
    await nd.write(JSON.stringify(record) + '\n')
    written++
    await row(table, values)
  }
  const row = async (table: string, values: Array<string | null>) => {
    await copy[table].write(copyLine(values))
    rows[table]++
  }

  for (let c = 0; c < 40; c++) {
    await emit({ type: 'category', id: `c-${c}`, name: `Category ${c}`, synthetic: c % 10 === 9 }, 'categories', [`c-${c}`, `Category ${c}`, c % 10 === 9 ? 't' : 'f'])
  }
  for (let r = 0; r < 6; r++) await emit({ type: 'redflag', id: `rf-${r}`, label: `Red flag ${r}` }, 'red_flags', [`rf-${r}`, `Red flag ${r}`])
  for (let i = 0; i < 400; i++) {
    const rf = i % 37 === 0 ? `rf-${i % 6}` : null
    await emit({ type: 'interest', id: `i-${i}`, name: `Interest ${i}`, categoryId: `c-${i % 40}`, redFlagId: rf }, 'interests', [`i-${i}`, `Interest ${i}`, `c-${i % 40}`, rf])
  }
  const rest = lines - 446
  const nAccounts = Math.max(1, Math.floor(rest * 0.05))
  const nProfiles = Math.max(2, Math.floor(rest * 0.02))
  const nFriends = Math.min(Math.floor(rest * 0.05), nProfiles * 3)
  const nRepeats = Math.floor(rest * repeats)
  const nFollows = rest - nAccounts - nProfiles - nFriends - nRepeats
  if (nFollows > nProfiles * nAccounts) throw new Error('too few accounts for that many follows')
  if (nFollows < 0) throw new Error('too many repeats')
  // keyed record k (follows, then friendships) is repeated when the running share steps up: exactly
  // nRepeats of them, evenly spread
  const keyed = nFollows + nFriends
  let k = 0
  const repeated = () => { k++; return Math.floor((k * nRepeats) / keyed) > Math.floor(((k - 1) * nRepeats) / keyed) }
  const stale = async (record: Record<string, unknown>) => {
    await nd.write(JSON.stringify(record) + '\n')
    written++
  }

  for (let a = 0; a < nAccounts; a++) {
    const source = SOURCES[a % 5]
    const image = a % 3 === 0 ? null : `https://img.example/a${a}.png`
    const k = int(4)
    const base = int(400)
    const interests = [...new Set(Array.from({ length: k }, (_, j) => `i-${(base + 40 * j + int(2)) % 400}`))]
    await emit({ type: 'account', id: `a-${a}`, source, username: `account${a}`, fullname: `Account ${a}`, image, interests },
      'accounts', [`a-${a}`, source, `account${a}`, `Account ${a}`, image])
    for (const i of interests) await row('account_interests', [`a-${a}`, i])
  }
  for (let p = 0; p < nProfiles; p++) {
    const source = SOURCES[p % 5]
    const image = p % 4 === 0 ? null : `https://img.example/p${p}.png`
    const link = `https://${source}.example/user${p}`
    await emit({ type: 'profile', id: `p-${p}`, source, username: `user${p}`, fullname: `User ${p}`, image, link },
      'profiles', [`p-${p}`, source, `user${p}`, `User ${p}`, image, link])
  }
  // follows: profile p follows accounts (p * 7 + j) mod A, j = 0, 1, ... (distinct while j < A)
  const end = 2026 * 12 + 5
  for (let f = 0; f < nFollows; f++) {
    const p = f % nProfiles
    const j = Math.floor(f / nProfiles)
    const a = (p * 7 + j) % nAccounts
    const start = end - 23 + int(24)
    const since = date(start, 1 + int(28))
    const until = int(5) === 0 && start < end ? date(start + 1 + int(end - start), 1 + int(28)) : null
    if (repeated()) await stale({ type: 'follow', profileId: `p-${p}`, accountId: `a-${a}`, since, until: until ? null : since })
    await emit({ type: 'follow', profileId: `p-${p}`, accountId: `a-${a}`, since, until }, 'follows', [`p-${p}`, `a-${a}`, since, until])
  }
  // friendships: p with p + d (d = 1, 2, 3), stored with a < b as the import stores them
  for (let r = 0; r < nFriends; r++) {
    const p = r % nProfiles
    const d = 1 + Math.floor(r / nProfiles)
    const q = (p + d) % nProfiles
    const [x, y] = [`p-${p}`, `p-${q}`]
    if (repeated()) await stale({ type: 'friend', a: y, b: x })
    await emit({ type: 'friend', a: x, b: y }, 'friendships', x < y ? [x, y] : [y, x])
  }
  await nd.end()
  for (const o of Object.values(copy)) await o.end()
  return { ndjson: join(dir, `${name}.ndjson`), lines: written, bytes: nd.bytes, copyFiles, rows }
}
