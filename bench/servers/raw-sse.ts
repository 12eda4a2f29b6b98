// The baseline of scenario 6: a raw node:http SSE server holding streams and writing one event to
// all of them when the harness says so (IPC {type:'publish', seq, data}). The same wire format as
// the service: `retry:`, a first status event, then `id:`/`event:`/`data:` events.
import { createServer, type ServerResponse } from 'node:http'

const streams = new Set<ServerResponse>()
const format = (kind: string, data: unknown, seq?: number) => `${seq === undefined ? '' : `id: ${seq}\n`}event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`

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
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', connection: 'close' })
  res.write(`retry: 3000\n\n${format('status', { reportId, status: 'draft', progress: 0, stage: null })}`)
  streams.add(res)
  res.once('close', () => streams.delete(res))
})

process.on('message', (m: { type?: string, seq?: number, data?: unknown }) => {
  if (m?.type === 'publish') {
    const chunk = format('status', m.data, m.seq)
    for (const res of streams) res.write(chunk)
  }
})
process.channel?.unref()
process.once('SIGTERM', () => {
  for (const res of streams) res.end()
  server.close(() => process.exit(0))
})
server.listen(Number(process.env.PORT), '127.0.0.1')
