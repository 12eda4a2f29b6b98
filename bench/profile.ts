// node --import tsx bench/profile.ts FILE.cpuprofile [N]: the functions with the most self time,
// and the packages/files they belong to, from a `--cpu-prof` profile (BENCH_CPU_PROF=dir writes
// one per service process).
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  children?: number[]
}
interface Profile { nodes: Node[], samples: number[], timeDeltas: number[] }

const [file, n = '25'] = process.argv.slice(2)
if (!file) {
  console.error('usage: node --import tsx bench/profile.ts FILE.cpuprofile [N]')
  process.exit(2)
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((x) => [x.id, x]))
const self = new Map<number, number>()
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = [...self.values()].reduce((a, b) => a + b, 0)

function where (url: string): string {
  if (!url) return '(native)'
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (m) return m[1]
  if (url.startsWith('node:')) return 'node core'
  const i = url.indexOf('/src/')
  return i >= 0 ? url.slice(i + 1) : url.replace(/^file:\/\//, '')
}

const fns = new Map<string, number>()
const groups = new Map<string, number>()
for (const [id, t] of self) {
  const f = byId.get(id)!.callFrame
  const key = `${f.functionName || '(anonymous)'}  ${where(f.url)}:${f.lineNumber + 1}`
  fns.set(key, (fns.get(key) ?? 0) + t)
  const g = f.url ? where(f.url) : f.functionName
  groups.set(g, (groups.get(g) ?? 0) + t)
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`)
console.log('\nself time by package / file')
for (const [g, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`  ${pct(t)}  ${g}`)
console.log('\nself time by function')
for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`  ${pct(t)}  ${k}`)
