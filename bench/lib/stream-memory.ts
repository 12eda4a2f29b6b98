// Open streams within a memory budget: what a server's resident set reaches without streams, and
// what each open stream adds to it, measured on a few thousand streams and extrapolated to the
// budget. The part without streams is the process's peak resident set so far (VmHWM): for the
// service, after every request the run has sent it, so that it holds what a busy instance holds
// besides its streams (its young generation used whole, the argon2 threads' arenas, the views). Per
// stream: the slope of the resident set, read by the probe (bench/lib/probe.ts: after full,
// compacting collections, once RSS has settled), over no stream and each count.
import { linearFit, MiB } from './memory.ts'
import { peakRssOf, type Child } from './processes.ts'
import { round } from './results.ts'
import type { Opened, SseClient } from './streams.ts'

export interface StreamTarget {
  label: string
  child: Child
  url: string
  headers: Record<string, string>
}

export interface StreamBudget {
  label: string
  /** streams at each reading, the resident set there, and the young generation V8 had committed (MiB) */
  points: Array<{ streams: number, rssMiB: number, youngMiB: number }>
  /** KiB each open stream adds (the slope through the points) */
  perStreamKiB: number
  /** MiB that do not grow with streams: the peak resident set before the first stream */
  fixedMiB: number
  budgetMiB: number
  /** (budget - fixed) / per stream: an extrapolation from the largest count measured */
  streams: number
}

export async function streamsWithin (client: SseClient, t: StreamTarget, counts: number[], budgetMiB: number, warmup: number): Promise<StreamBudget> {
  const fixedMiB = peakRssOf(t.child.proc.pid!) / MiB
  const opened = async (count: number) => {
    const o = await client.ask<Opened>({ type: 'open', url: t.url, headers: t.headers, count, concurrency: 200 })
    if (o.failed) throw new Error(`${t.label}: ${o.failed} streams failed to open: ${JSON.stringify(o.statuses)}`)
    return o.open
  }
  const closed = async () => {
    await client.ask({ type: 'close' })
    // the server sees every close before the next reading
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  // the stream path compiled, and let go
  await opened(warmup)
  await closed()
  const points: StreamBudget['points'] = []
  const read = async (streams: number) => {
    const m = await t.child.memory()
    points.push({ streams, rssMiB: round(m.rss / MiB, 2), youngMiB: round(m.youngGeneration / MiB, 1) })
  }
  await read(0)
  let held = 0
  for (const count of [...counts].sort((a, b) => a - b)) {
    held = await opened(count - held)
    await read(held)
  }
  await closed()
  const perStreamKiB = linearFit(points.map((p) => p.streams), points.map((p) => p.rssMiB)).slope * 1024
  return {
    label: t.label,
    points,
    perStreamKiB: round(perStreamKiB, 2),
    fixedMiB: round(fixedMiB, 1),
    budgetMiB,
    streams: perStreamKiB > 0 ? Math.max(0, Math.floor((budgetMiB - fixedMiB) * 1024 / perStreamKiB)) : 0
  }
}
