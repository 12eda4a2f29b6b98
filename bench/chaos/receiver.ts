// The webhook receiver of the chaos run: one local HTTP server for every endpoint the workload
// registers (`/hook/<n>`), answering 200 at once and recording each request's webhook-id, event type
// and report, so the books can say whether each report.ready arrived, and under how many ids.
import { once } from 'node:events'
import { createServer } from 'node:http'

export interface Received { endpoint: string, webhookId: string, type: string, reportId: string | null, at: number }

export interface Receiver {
  url: string
  received: Received[]
  close: () => Promise<void>
}

export async function startReceiver (): Promise<Receiver> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let type = ''
      let reportId: string | null = null
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string, data?: { reportId?: string } }
        type = String(body.type ?? '')
        reportId = body.data?.reportId ?? null
      } catch {}
      received.push({ endpoint: req.url ?? '', webhookId: String(req.headers['webhook-id'] ?? ''), type, reportId, at: Date.now() })
      res.writeHead(200).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
