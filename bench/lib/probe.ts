// Loaded into every process the benchmark measures (node --import): answers over the IPC channel
// - {type:'memory'}: process.memoryUsage() after a full garbage collection, so that "memory per
//   stream" compares live objects, not whatever the collector has not got round to yet; the last
//   pass also gives back the heap pages V8 keeps committed or pooled after a burst of garbage (on
//   opening 10,000 streams, more than the streams' own objects, and different from run to run).
//   With it, the young generation's committed bytes (V8 gives half of it back when the process
//   idles and takes it again under load: a change in RSS that is not the streams');
// - {type:'heap-snapshot', file}: a V8 heap snapshot (bench/heap-diff.ts compares two).
// The service itself has no such code path.
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'

const gc = (globalThis as { gc?: (options?: { type: 'major', execution: 'sync', flavor: 'last-resort' }) => void }).gc

function collect () {
  if (typeof gc !== 'function') return
  // a few passes: the first frees objects whose finalizers free more
  for (let i = 0; i < 2; i++) gc()
  // what V8's memory reducer does to an idle process over a few seconds: collections that compact
  // (each moves at most ~12 MB of live objects out of fragmented pages)
  for (let i = 0; i < 5; i++) gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

if (process.send) {
  process.on('message', (m: { type?: string, file?: string }) => {
    if (m?.type === 'memory') {
      collect()
      const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
      process.send!({ type: 'memory', memory: { ...process.memoryUsage(), youngGeneration: young } })
    } else if (m?.type === 'heap-snapshot' && m.file) {
      collect()
      process.send!({ type: 'heap-snapshot', file: writeHeapSnapshot(m.file) })
    }
  })
  // the channel must not keep a process alive that wants to exit
  process.channel?.unref()
}
