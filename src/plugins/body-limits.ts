// A body over the limit gets its 413 read by the client (docs/decisions/programs.md, HTTP
// hardening).
// - `Expect: 100-continue` with a Content-Length over the route's limit: no `100 Continue` (Node
//   sends it unasked unless the server listens for checkContinue), so the client never sends the
//   body, and the 413 Fastify answers from the Content-Length closes the connection.
// - A refused body still on its way (over the limit as it grows, or sent anyway): the answer closes
//   the connection, and closing a socket with unread bytes resets it, which can throw away the 413
//   before the client reads it. So the connection lingers, as nginx's lingering close does: the
//   answer is followed by a FIN, what the client still sends is read and dropped, and the socket is
//   closed when the client closes its side, at the latest LINGER_MS later.
// HTTP/2 refuses a body per stream and never closes the connection for it: none of this applies.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

/** how long a closing connection reads and drops what the client still sends */
export const LINGER_MS = 10_000

const pathOf = (url: string | undefined) => {
  const path = (url ?? '/').split('?')[0]
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

/** end the socket's writing side now and read until the client closes, at most LINGER_MS */
function lingerOnClose (socket: Socket): void {
  const own = socket as Socket & { lingering?: boolean }
  if (own.lingering) return
  own.lingering = true
  // Node's HTTP server closes a `Connection: close` socket with destroySoon once the answer is
  // written: its FIN is kept, its destroy waits for the client's or the bound
  own.destroySoon = function lingeringClose (this: Socket) {
    if (this.writable) this.end()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    this.once('close', () => clearTimeout(timer))
    // a socket whose bytes nobody reads any more (the HTTP parser let go of it) reads them here
    this.on('data', () => {})
    this.resume()
  }
}

async function bodyLimitsPlugin (app: FastifyInstance) {
  const defaultLimit = app.initialConfig.bodyLimit ?? 1024 * 1024
  // routes with a limit of their own (POST /ingest), by method and path
  const own = new Map<string, number>()
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined) return
    for (const method of [route.method].flat()) own.set(`${method} ${pathOf(route.url)}`, route.bodyLimit)
  })
  const limitOf = (req: IncomingMessage) => own.get(`${req.method} ${pathOf(req.url)}`) ?? defaultLimit

  // requests answered without `100 Continue`: their client holds the body back, or sends it unasked
  const withheld = new WeakSet<IncomingMessage>()
  const server = app.server as unknown as NodeJS.EventEmitter
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const length = Number(req.headers['content-length'])
    if (length > limitOf(req)) withheld.add(req)
    else res.writeContinue()
    server.emit('request', req, res)
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw
    // a body refused before it was read whole: this connection cannot serve another request
    if (raw.httpVersionMajor === 1 && !raw.complete &&
      (reply.statusCode === 413 || withheld.has(raw) || String(reply.getHeader('connection')).toLowerCase() === 'close')) {
      reply.header('connection', 'close')
      lingerOnClose(raw.socket)
    }
    done(null, payload)
  })
}

export default fp(bodyLimitsPlugin, { name: 'body-limits' })
