// A 100,000-line file imports with flat memory: the import streams its input and keeps ids, never
// records. Heap growth is sampled during the import (no timing assertion).
import t from '../tap.ts'
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createIngestService } from '../../src/services/ingest/index.ts'
import { freshDatabase } from '../helper.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const LINES = 100_000
const MB = 1024 * 1024

async function writeBigFile (file: string): Promise<Record<string, number>> {
  const out = createWriteStream(file)
  const counts: Record<string, number> = { category: 0, redflag: 0, interest: 0, account: 0, profile: 0, follow: 0, friend: 0 }
  let lines = 0
  let chunk = ''
  const write = async (r: Record<string, unknown>) => {
    counts[r.type as string]++
    lines++
    chunk += JSON.stringify(r) + '\n'
    if (chunk.length > 256 * 1024) {
      if (!out.write(chunk)) await once(out, 'drain')
      chunk = ''
    }
  }
  for (let c = 0; c < 20; c++) await write({ type: 'category', id: `c-${c}`, name: `Category ${c}`, synthetic: c % 10 === 9 })
  for (let r = 0; r < 3; r++) await write({ type: 'redflag', id: `rf-${r}`, label: `Flag ${r}` })
  for (let i = 0; i < 300; i++) {
    await write({ type: 'interest', id: `i-${i}`, name: `Interest ${i}`, categoryId: `c-${i % 20}`, redFlagId: i % 100 === 7 ? `rf-${i % 3}` : null })
  }
  const accounts = 10_000
  const profiles = 5_000
  for (let a = 0; a < accounts; a++) {
    await write({
      type: 'account', id: `a-${a}`, source: 'ig', username: `account${a}`, fullname: `Account ${a}`,
      image: a % 3 ? `https://img.example.com/a/${a}.jpg` : null, interests: [`i-${a % 300}`, `i-${(a * 7 + 1) % 300}`].filter((x, k, xs) => xs.indexOf(x) === k)
    })
  }
  for (let p = 0; p < profiles; p++) {
    await write({ type: 'profile', id: `p-${p}`, source: 'ig', username: `person${p}`, fullname: `Person ${p}`, image: null, link: `https://www.instagram.com/person${p}/` })
  }
  const friends = 4_000
  const follows = LINES - lines - friends
  for (let f = 0; f < follows; f++) {
    const p = f % profiles
    const a = (Math.floor(f / profiles) * 131 + p * 17) % accounts
    const month = 1 + (f % 12)
    await write({ type: 'follow', profileId: `p-${p}`, accountId: `a-${a}`, since: `2024-${String(month).padStart(2, '0')}-15`, until: f % 9 === 0 ? '2025-03-01' : null })
  }
  for (let f = 0; f < friends; f++) await write({ type: 'friend', a: `p-${f}`, b: `p-${(f * 3 + 1) % profiles}` })
  out.end(chunk)
  await once(out, 'finish')
  t.equal(lines, LINES)
  return counts
}

t.test('a 100,000-line file imports with flat memory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pir-ingest-big-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'big.ndjson')
  const counts = await writeBigFile(file)

  const database = await freshDatabase(t)
  const ingest = createIngestService({ database })
  gc()
  const baseline = process.memoryUsage().heapUsed
  let peak = baseline
  const out = await ingest.importFile(file, {
    onProgress: () => { peak = Math.max(peak, process.memoryUsage().heapUsed) }
  })
  t.equal(out.invalid, 0, JSON.stringify(out.errors))
  t.same(out.imported, counts)
  const growth = (peak - baseline) / MB
  t.comment(`heap growth during the import: ${growth.toFixed(1)} MB`)
  t.ok(growth < 150, `heap growth ${growth.toFixed(1)} MB stays under 150 MB`)
  gc()
  const after = (process.memoryUsage().heapUsed - baseline) / MB
  t.ok(after < 20, `nothing kept after the import (${after.toFixed(1)} MB)`)

  const [row] = await database.query<{ n: number }>('select count(*)::int as n from follows')
  t.equal(row.n, counts.follow)
})
