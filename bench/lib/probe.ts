// Loaded into every process the benchmark measures (node --import): answers over the IPC channel
// - {type:'memory'}: process.memoryUsage() after a full garbage collection, so that "memory per
//   stream" compares live objects, not whatever the collector has not got round to yet;
// - {type:'heap-snapshot', file}: a V8 heap snapshot (bench/heap-diff.ts compares two).
// The service itself has no such code path.
import { writeHeapSnapshot } from 'node:v8'

const gc = (globalThis as { gc?: () => void }).gc

function collect () {
  // a few passes: the first frees objects whose finalizers free more
  for (let i = 0; i < 3; i++) if (typeof gc === 'function') gc()
}

if (process.send) {
  process.on('message', (m: { type?: string, file?: string }) => {
    if (m?.type === 'memory') {
      collect()
      process.send!({ type: 'memory', memory: process.memoryUsage() })
    } else if (m?.type === 'heap-snapshot' && m.file) {
      collect()
      process.send!({ type: 'heap-snapshot', file: writeHeapSnapshot(m.file) })
    }
  })
  // the channel must not keep a process alive that wants to exit
  process.channel?.unref()
}
