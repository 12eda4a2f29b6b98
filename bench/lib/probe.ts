// Loaded into every process the benchmark measures (node --import): answers over the IPC channel
// - {type:'memory'}: process.memoryUsage() after full garbage collections, so that "memory per
//   stream" compares live objects, not whatever the collector has not got round to yet. Heap pages
//   V8 keeps committed after a burst of garbage stay committed: Node 20's gc() has no option for the
//   memory reducer's compacting collections (gc({type:'major'}) runs a scavenge there, --trace-gc
//   shows), so RSS includes them, as it does in production. With it, the young generation's
//   committed bytes (V8 gives half of it back when the process idles and takes it again under load:
//   a change in RSS that is not the streams');
// - {type:'heap-snapshot', file}: a V8 heap snapshot (bench/heap-diff.ts compares two);
// - {type:'young-gc'}: a scavenge, so that what follows starts on an empty young generation
//   (bench/instructions.ts, before its counted window).
// The service itself has no such code path.
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc

function collect () {
  if (typeof gc !== 'function') return
  // two passes: the first frees objects whose finalizers free more
  for (let i = 0; i < 2; i++) gc()
}

if (process.send) {
  process.on('message', (m: { type?: string, file?: string }) => {
    if (m?.type === 'memory') {
      collect()
      const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
      process.send!({ type: 'memory', memory: { ...process.memoryUsage(), youngGeneration: young } })
    } else if (m?.type === 'young-gc') {
      gc?.({ type: 'minor' })
      process.send!({ type: 'young-gc' })
    } else if (m?.type === 'heap-snapshot' && m.file) {
      collect()
      process.send!({ type: 'heap-snapshot', file: writeHeapSnapshot(m.file) })
    }
  })
  // the channel must not keep a process alive that wants to exit
  process.channel?.unref()
}
