// The app's shutdown state, for what must stop advertising the instance before it stops serving:
// GET /health/ready. It begins with drain() (SIGTERM, src/server.ts: readiness answers 503 while
// everything else is still served, so that a load balancer polling it takes the instance out of
// rotation before the listener closes) or, at the latest, when close begins (before the streams end
// and the workers stop, which take seconds). Registered first, so its preClose hook runs before
// every other.
// From then on every answer on HTTP/1.1 carries `Connection: close`, so that each connection ends
// with the request it was serving: no client or balancer holds an idle keep-alive connection when
// the listener closes (one it sent a request on at that moment would be reset), and close, which
// waits for every connection, is not held for the keep-alive timeout (72 s), past the grace allowed.
// HTTP/2 needs no such header: Fastify ends each session with GOAWAY at close, which tells the
// client which streams were not served, so it retries them elsewhere.
// (Fastify marks the requests that arrive after close began; this covers those already in flight.)
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** true from drain() or the moment close() begins, whichever comes first */
    shuttingDown: () => boolean
    /** stop advertising the instance (readiness 503) while it keeps serving every request */
    drain: () => void
  }
}

async function lifecyclePlugin (app: FastifyInstance) {
  let closing = false
  app.decorate('shuttingDown', () => closing)
  app.decorate('drain', () => { closing = true })
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
    done(null, payload)
  })
}

export default fp(lifecyclePlugin, { name: 'lifecycle' })
