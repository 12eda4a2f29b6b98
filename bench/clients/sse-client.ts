// The SSE load client of scenario 6, its own process, driven over IPC by the harness:
//   {type:'open', url, headers, count, concurrency} -> {type:'opened', open, failed, statuses, ms}
//   {type:'expect', seq}                            -> {type:'expecting'}
//   {type:'collect', timeoutMs}                     -> {type:'collected', seq, received, at[]} (ms, monotonic clock)
//   {type:'close'}                                  -> {type:'closed'}
// Receive times are process.hrtime (CLOCK_MONOTONIC), the same clock as the harness's publish time.
import { request as httpRequest, type ClientRequest } from 'node:http'

interface Stream { req: ClientRequest, tail: string, at: number }

const streams: Stream[] = []
let expected = -1
let needle = ''
let received = 0
let waiters: Array<() => void> = []

const now = () => Number(process.hrtime.bigint()) / 1e6
const reply = (m: unknown) => { process.send!(m) }

function onData (s: Stream, chunk: string) {
  const text = s.tail + chunk
  s.tail = text.slice(-40)
  if (expected >= 0 && s.at < 0 && text.includes(needle)) {
    s.at = now()
    received++
    if (received === streams.length) for (const w of waiters.splice(0)) w()
  }
}

function openOne (url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const s: Stream = { req: null as unknown as ClientRequest, tail: '', at: -1 }
    const req = httpRequest(url, { headers, agent: false })
    s.req = req
    let settled = false
    const done = (status: number) => { if (!settled) { settled = true; resolve(status) } }
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        done(res.statusCode ?? 0)
        return
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        onData(s, chunk)
        // open once the first event is in: the server has set the stream up
        if (!settled && s.tail.includes('\n\n') && (s.tail.includes('data:') || chunk.includes('data:'))) {
          streams.push(s)
          done(200)
        }
      })
      res.on('error', () => done(-1))
    })
    req.on('error', () => done(-1))
    req.end()
  })
}

process.on('message', async (m: { type: string, url?: string, headers?: Record<string, string>, count?: number, concurrency?: number, seq?: number, timeoutMs?: number }) => {
  if (m.type === 'open') {
    const t0 = now()
    const statuses: Record<string, number> = {}
    let next = 0
    const worker = async () => {
      while (next < m.count!) {
        next++
        const status = await openOne(m.url!, m.headers ?? {})
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }
    await Promise.all(Array.from({ length: m.concurrency ?? 100 }, worker))
    reply({ type: 'opened', open: streams.length, failed: m.count! - (statuses[200] ?? 0), statuses, ms: now() - t0 })
  } else if (m.type === 'expect') {
    expected = m.seq!
    needle = `id: ${m.seq}\n`
    received = 0
    for (const s of streams) s.at = -1
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
  } else if (m.type === 'close') {
    for (const s of streams.splice(0)) s.req.destroy()
    waiters = []
    reply({ type: 'closed' })
  }
})
