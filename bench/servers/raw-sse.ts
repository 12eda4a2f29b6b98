// The baseline SSE server: raw node:http holding streams, `GET /sse/<reportId>`, and writing an
// event to them when told. The same wire format as the service: `retry:`, a first status event, then
// `id:`/`event:`/`data:` events.
// - Scenario 6: the harness says so (IPC {type:'publish', seq, data}), and every stream gets it.
// - The transport ceilings (bench/lib/fleet.ts): the service's announcements '<reportId>:<seq>'
//   themselves, and the report's streams get the event. BENCH_EVENTS=notify LISTENs on
//   report_events at BENCH_EVENTS_URL (a PostgreSQL URL); BENCH_EVENTS=redis subscribes, at
//   BENCH_EVENTS_URL (a Redis URL), to the report's channel while a stream of it is open here, as
//   the service does (docs/decisions/reports-and-streams.md, Events through a broker). What it leaves out beside the
//   service is the service's own work per event: the row read, the hub, the streams' owners.
import { createServer, type ServerResponse } from 'node:http'
import { Redis } from 'ioredis'
import postgres from 'postgres'

const byReport = new Map<string, Set<ServerResponse>>()
const format = (kind: string, data: unknown, seq?: number) => `${seq === undefined ? '' : `id: ${seq}\n`}event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`
const status = (reportId: string, progress: number) => ({ reportId, status: 'draft', progress, stage: null })

const mode = process.env.BENCH_EVENTS ?? ''
const eventsUrl = process.env.BENCH_EVENTS_URL ?? ''
const channelOf = (reportId: string) => `pir-events:report_events:${reportId}`

/** an announcement '<reportId>:<seq>': the event to the report's streams */
function announced (payload: string) {
  const i = payload.lastIndexOf(':')
  const reportId = payload.slice(0, i)
  const seq = Number(payload.slice(i + 1))
  const streams = byReport.get(reportId)
  if (!streams) return
  const chunk = format('status', status(reportId, seq % 100), seq)
  for (const res of streams) res.write(chunk)
}

const listener = mode === 'notify' ? postgres(eventsUrl, { max: 1, onnotice: () => {} }) : undefined
if (listener) await listener.listen('report_events', announced)
const subscriber = mode === 'redis' ? new Redis(eventsUrl) : undefined
subscriber?.on('message', (_channel: string, payload: string) => { announced(payload) })

async function join (reportId: string, res: ServerResponse) {
  let streams = byReport.get(reportId)
  if (!streams) {
    byReport.set(reportId, streams = new Set())
    await subscriber?.subscribe(channelOf(reportId))
  }
  streams.add(res)
  res.once('close', () => {
    streams.delete(res)
    if (streams.size > 0 || byReport.get(reportId) !== streams) return
    byReport.delete(reportId)
    subscriber?.unsubscribe(channelOf(reportId)).catch(() => {})
  })
}

const server = createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    return
  }
  if (req.url?.startsWith('/sse/') !== true) {
    res.writeHead(404).end()
    return
  }
  const reportId = req.url.slice(5)
  join(reportId, res).then(() => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', connection: 'close' })
    res.write(`retry: 3000\n\n${format('status', status(reportId, 0))}`)
  }, () => { res.writeHead(503).end() })
})

process.on('message', (m: { type?: string, seq?: number, data?: unknown }) => {
  if (m?.type === 'publish') {
    const chunk = format('status', m.data, m.seq)
    for (const streams of byReport.values()) for (const res of streams) res.write(chunk)
  }
})
process.channel?.unref()
process.once('SIGTERM', () => {
  for (const streams of byReport.values()) for (const res of streams) res.end()
  subscriber?.disconnect()
  Promise.resolve(listener?.end({ timeout: 1 })).finally(() => server.close(() => process.exit(0)))
})
server.listen(Number(process.env.PORT), '127.0.0.1')
