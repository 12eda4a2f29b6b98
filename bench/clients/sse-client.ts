// The SSE load client of scenario 6, its own process, driven over IPC by the harness:
//   {type:'open', url, headers, count, concurrency} -> {type:'opened', open, failed, statuses, ms}
//   {type:'expect', seq}                            -> {type:'expecting'}
//   {type:'collect', timeoutMs}                     -> {type:'collected', seq, received, at[]} (ms, monotonic clock)
//   {type:'close'}                                  -> {type:'closed'}
// and, for events of many reports at once (bench/lib/fleet.ts), each stream opened with a `tag`:
//   {type:'track'}                                  -> {type:'tracking'}: from now every `id:` line of every stream is recorded
//   {type:'tracked', expect, timeoutMs}             -> {type:'tracked', streams: [{tag, ids[], at[]}]} once `expect`
//                                                      ids are in (or the timeout), and recording stops
// Receive times are process.hrtime (CLOCK_MONOTONIC), the same clock as the harness's publish time.
//
// Each stream is a plain TCP connection carrying one hand-written GET, and an arrival is the event's
// `id: <seq>` line in the bytes read: with 10,000 streams in one process, node:http's response
// parsing and readable streams made this client, not the servers, the larger part of both sides'
// publish-to-receive time. Both servers are read the same way.
import { connect, type Socket } from 'node:net'

interface Stream {
  socket: Socket
  tail: Buffer
  at: number
  tag: string
  /** tracking: the last line read, when it had no end yet; the ids read and when */
  partial: string
  ids: number[]
  times: number[]
}

const streams: Stream[] = []
let expected = -1
let needle = Buffer.alloc(0)
let received = 0
let waiters: Array<() => void> = []
let tracking = false
let recorded = 0
let trackTarget = Infinity
let trackWaiters: Array<() => void> = []

const now = () => Number(process.hrtime.bigint()) / 1e6
const reply = (m: unknown) => { process.send!(m) }
const EVENT_END = Buffer.from('\n\n')

const ID_LINE = /^id: (\d+)$/gm

function track (s: Stream, chunk: Buffer) {
  const text = s.partial + chunk.toString('latin1')
  const end = text.lastIndexOf('\n')
  s.partial = text.slice(end + 1)
  if (end < 0) return
  const t = now()
  for (const m of text.slice(0, end).matchAll(ID_LINE)) {
    s.ids.push(Number(m[1]))
    s.times.push(t)
    recorded++
  }
  if (recorded >= trackTarget) for (const w of trackWaiters.splice(0)) w()
}

function onData (s: Stream, chunk: Buffer) {
  if (tracking) track(s, chunk)
  if (expected < 0 || s.at >= 0) return
  // the needle may straddle two reads: look at the end of the last one too
  const seen = chunk.includes(needle) || (s.tail.length > 0 && Buffer.concat([s.tail, chunk.subarray(0, needle.length)]).includes(needle))
  s.tail = chunk.subarray(Math.max(0, chunk.length - needle.length))
  if (seen) {
    s.at = now()
    received++
    if (received === streams.length) for (const w of waiters.splice(0)) w()
  }
}

function request (url: URL, headers: Record<string, string>): string {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'accept: text/event-stream', 'connection: close']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** open one stream; its HTTP status once the first event is in (then it counts as open), or -1 */
function openOne (url: URL, headers: Record<string, string>, tag: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    const s: Stream = { socket, tail: Buffer.alloc(0), at: -1, tag, partial: '', ids: [], times: [] }
    let head = Buffer.alloc(0)
    let settled = false
    const done = (status: number) => {
      if (settled) return
      settled = true
      head = Buffer.alloc(0)
      if (status === 200) streams.push(s)
      else socket.destroy()
      resolve(status)
    }
    socket.on('data', (chunk: Buffer) => {
      if (settled) { onData(s, chunk); return }
      head = Buffer.concat([head, chunk])
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head.subarray(0, 16).toString('latin1'))?.[1] ?? 0)
      if (status !== 0 && status !== 200) { done(status); return }
      // open once the head and the first event are in: the server has set the stream up
      const body = head.indexOf('\r\n\r\n')
      if (status === 200 && body >= 0 && head.indexOf(EVENT_END, body + 4) >= 0 && head.includes('data:')) done(200)
    })
    socket.on('error', () => done(-1))
    socket.on('close', () => done(-1))
    socket.write(request(url, headers))
  })
}

process.on('message', async (m: { type: string, url?: string, headers?: Record<string, string>, count?: number, concurrency?: number, seq?: number, timeoutMs?: number, tag?: string, expect?: number }) => {
  if (m.type === 'open') {
    const t0 = now()
    const url = new URL(m.url!)
    const statuses: Record<string, number> = {}
    let next = 0
    const worker = async () => {
      while (next < m.count!) {
        next++
        const status = await openOne(url, m.headers ?? {}, m.tag ?? '')
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }
    await Promise.all(Array.from({ length: m.concurrency ?? 100 }, worker))
    reply({ type: 'opened', open: streams.length, failed: m.count! - (statuses[200] ?? 0), statuses, ms: now() - t0 })
  } else if (m.type === 'expect') {
    expected = m.seq!
    needle = Buffer.from(`id: ${m.seq}\n`)
    received = 0
    for (const s of streams) { s.at = -1; s.tail = Buffer.alloc(0) }
    reply({ type: 'expecting' })
  } else if (m.type === 'collect') {
    if (received < streams.length) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, m.timeoutMs ?? 10_000)
        waiters.push(() => { clearTimeout(timer); resolve() })
      })
    }
    reply({ type: 'collected', seq: expected, received, at: streams.filter((s) => s.at >= 0).map((s) => s.at) })
    expected = -1
  } else if (m.type === 'track') {
    for (const s of streams) { s.partial = ''; s.ids = []; s.times = [] }
    recorded = 0
    trackTarget = Infinity
    tracking = true
    reply({ type: 'tracking' })
  } else if (m.type === 'tracked') {
    if (recorded < m.expect!) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, m.timeoutMs ?? 10_000)
        trackTarget = m.expect!
        trackWaiters.push(() => { clearTimeout(timer); resolve() })
      })
    }
    tracking = false
    trackWaiters = []
    reply({ type: 'tracked', streams: streams.map((s) => ({ tag: s.tag, ids: s.ids, at: s.times })) })
    for (const s of streams) { s.ids = []; s.times = [] }
  } else if (m.type === 'close') {
    for (const s of streams.splice(0)) s.socket.destroy()
    waiters = []
    reply({ type: 'closed' })
  }
})
