// A webhook receiver for the tests (not a test file itself): a real HTTP server on loopback that
// records every request it gets (headers and the raw body) and answers each with what `answer`
// says for it: a status, or `hold` (keep the request open until the test ends it).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Tap } from '../helper.ts'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** what to answer the n-th request (0-based): a status, or hold it open */
export type Answer = (n: number, req: Received) => number | 'hold'

export interface Receiver {
  url: string
  received: Received[]
  /** resolves once `n` requests have arrived (rejects after timeoutMs) */
  waitFor: (n: number, timeoutMs?: number) => Promise<Received[]>
  /** requests held open, to answer or drop */
  held: ServerResponse[]
  answer: Answer
}

export async function startReceiver (t: Tap, answer: Answer = () => 200): Promise<Receiver> {
  const received: Received[] = []
  const held: ServerResponse[] = []
  const receiver: Receiver = { url: '', received, held, answer, waitFor }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      const n = received.length
      received.push(r)
      const what = receiver.answer(n, r)
      if (what === 'hold') held.push(res)
      else res.writeHead(what, { 'content-type': 'text/plain' }).end(what === 301 ? '' : 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.teardown(async () => {
    for (const res of held) res.destroy()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  function waitFor (n: number, timeoutMs = 30_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs
    return new Promise((resolve, reject) => {
      const check = () => {
        if (received.length >= n) return resolve(received.slice(0, n))
        if (Date.now() > until) return reject(new Error(`the receiver got ${received.length} of ${n} requests`))
        setTimeout(check, 50)
      }
      check()
    })
  }
  return receiver
}
