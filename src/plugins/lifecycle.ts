// The app's shutdown state, set first thing when close begins (before the streams end and the
// workers stop, which take seconds), for what must stop advertising the instance at once:
// GET /health/ready. Registered first, so its preClose hook runs before every other.
// From then on every answer on HTTP/1.1 carries `Connection: close`, so that each connection ends
// with the request it was serving: close waits for every connection, and a keep-alive one left idle
// would hold the process for the keep-alive timeout (72 s), past the 10 s close-with-grace allows.
// (Fastify marks the requests that arrive after close began; this covers those already in flight.)
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** true from the moment close() begins */
    shuttingDown: () => boolean
  }
}

async function lifecyclePlugin (app: FastifyInstance) {
  let closing = false
  app.decorate('shuttingDown', () => closing)
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
    done(null, payload)
  })
}

export default fp(lifecyclePlugin, { name: 'lifecycle' })
