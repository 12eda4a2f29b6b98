// A local siteverify endpoint, as Turnstile, hCaptcha and reCAPTCHA expose it: a form POST with
// `secret`, `response` and `remoteip`, answered `{success}`. It accepts the response `good-token` only,
// and keeps every request so tests can check what the service sent.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export const GOOD_CAPTCHA = 'good-token'

export interface SiteverifyRequest {
  contentType: string
  secret: string | null
  response: string | null
  remoteip: string | null
}

export async function startSiteverify (t?: { teardown: (fn: () => unknown) => void }, opts: { status?: number } = {}) {
  const requests: SiteverifyRequest[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => { body += d })
    req.on('end', () => {
      const form = new URLSearchParams(body)
      const seen = {
        contentType: String(req.headers['content-type'] ?? ''),
        secret: form.get('secret'),
        response: form.get('response'),
        remoteip: form.get('remoteip')
      }
      requests.push(seen)
      res.statusCode = opts.status ?? 200
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ success: seen.response === GOOD_CAPTCHA }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = () => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  t?.teardown(close)
  return { url: `http://127.0.0.1:${port}/siteverify`, requests, close }
}
