// node --import tsx bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [N]: what grew between
// two V8 heap snapshots, by constructor (count and self size), e.g. per open SSE stream
// (BENCH_HEAP_SNAPSHOTS=dir npm run bench -- sse writes them).
import { readFileSync } from 'node:fs'

interface Snapshot {
  snapshot: { meta: { node_fields: string[], node_types: [string[], ...unknown[]] } }
  nodes: number[]
  strings: string[]
}

function tally (file: string): Map<string, { count: number, size: number }> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot
  const fields = s.snapshot.meta.node_fields
  const types = s.snapshot.meta.node_types[0]
  const width = fields.length
  const iType = fields.indexOf('type')
  const iName = fields.indexOf('name')
  const iSize = fields.indexOf('self_size')
  const out = new Map<string, { count: number, size: number }>()
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + iType]]
    const name = type === 'object' || type === 'native' ? s.strings[s.nodes[i + iName]] : `(${type})`
    const e = out.get(name) ?? { count: 0, size: 0 }
    e.count++
    e.size += s.nodes[i + iSize]
    out.set(name, e)
  }
  return out
}

const [before, after, n = '30', per = '1'] = process.argv.slice(2)
if (!before || !after) {
  console.error('usage: node --import tsx bench/heap-diff.ts BEFORE AFTER [N] [DIVIDE_BY]')
  process.exit(2)
}
const a = tally(before)
const b = tally(after)
const divide = Number(per)
const rows = [...b].map(([name, e]) => {
  const o = a.get(name) ?? { count: 0, size: 0 }
  return { name, count: (e.count - o.count) / divide, size: (e.size - o.size) / divide }
}).sort((x, y) => y.size - x.size)
const total = rows.reduce((t, r) => t + r.size, 0)
console.log(`growth ${(total / 1024).toFixed(2)} KiB${divide > 1 ? ` per unit (/${divide})` : ''}`)
for (const r of rows.slice(0, Number(n))) console.log(`  ${(r.size / 1024).toFixed(3).padStart(10)} KiB  ${r.count.toFixed(2).padStart(9)} x  ${r.name.slice(0, 80)}`)
