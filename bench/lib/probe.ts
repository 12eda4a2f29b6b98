// Loaded into every process the benchmark measures (node --import): answers over the IPC channel
// - {type:'memory'}: the process's memory after full, compacting garbage collections, once the
//   resident size has stopped moving, so that "memory per stream" compares what the process keeps,
//   not whatever the collector has not got round to yet:
//   - process.memoryUsage(), read then;
//   - `retained`: the V8 heap's resident pages outside the young generation plus the resident
//     pages of the main thread's malloc arena (the `[heap]` mapping, where libuv handles, socket
//     wrappers and HTTP parsers live). It leaves out the young generation, whose committed size V8
//     grows and shrinks with the allocation rate and idle time (16 -> 32 MiB in one measurement of
//     the raw server), and the other threads' arenas, which hold nothing per connection;
//   - `youngGeneration`: the bytes V8 has committed to the young generation.
//   Why each step: a full collection compacts only the pages V8 picks as most fragmented, so the
//   old generation kept half-empty pages of the garbage promoted while the streams opened (the
//   service's V8 heap outside the young generation grew by 5.6 and 6.0 KiB a stream in two runs,
//   its live objects by 4.6); with --compact-on-every-full-gc for these two collections it grew by
//   4.6-4.8 in every run. V8 returns the freed pages from a background thread: RSS read at once
//   was up to 40 MiB above RSS read a moment later, so the probe waits until two readings 100 ms
//   apart agree.
// - {type:'heap-snapshot', file}: a V8 heap snapshot (bench/heap-diff.ts compares two);
// - {type:'young-gc'}: a scavenge, so that what follows starts on an empty young generation
//   (bench/instructions.ts, before its counted window).
// The service itself has no such code path.
import { readFileSync } from 'node:fs'
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8'

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space'])
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function collect () {
  if (typeof gc !== 'function') return
  setFlagsFromString('--compact-on-every-full-gc')
  // two passes: the first frees objects whose finalizers free more
  for (let i = 0; i < 2; i++) gc()
  setFlagsFromString('--no-compact-on-every-full-gc')
}

/** until two readings of RSS 100 ms apart are within 64 KiB (at most 3 s) */
async function settle () {
  let last = process.memoryUsage.rss()
  for (let i = 0; i < 30; i++) {
    await sleep(100)
    const rss = process.memoryUsage.rss()
    if (Math.abs(rss - last) < 64 * 1024) return
    last = rss
  }
}

/** resident bytes of the main thread's malloc arena (Linux; 0 elsewhere) */
function mallocResident (): number {
  try {
    const smaps = readFileSync('/proc/self/smaps', 'utf8')
    const at = smaps.search(/^\S+ \S+ \S+ \S+ \S+\s+\[heap\]$/m)
    if (at < 0) return 0
    const m = /^Rss:\s+(\d+) kB/m.exec(smaps.slice(at))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

async function memory () {
  collect()
  await settle()
  const spaces = getHeapSpaceStatistics()
  const young = spaces.filter((s) => YOUNG_SPACES.has(s.space_name))
  const youngResident = young.reduce((sum, s) => sum + s.physical_space_size, 0)
  const v8Resident = getHeapStatistics().total_physical_size - youngResident
  const malloc = mallocResident()
  return {
    ...process.memoryUsage(),
    youngGeneration: spaces.find((s) => s.space_name === 'new_space')?.space_size ?? 0,
    retained: v8Resident + malloc,
    v8Resident,
    mallocResident: malloc
  }
}

if (process.send) {
  process.on('message', (m: { type?: string, file?: string }) => {
    if (m?.type === 'memory') {
      memory().then((memory) => process.send!({ type: 'memory', memory }), (err: Error) => { console.error(err) })
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
