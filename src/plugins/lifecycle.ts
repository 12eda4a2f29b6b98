// The app's shutdown state, set first thing when close begins (before the streams end and the
// workers stop, which take seconds), for what must stop advertising the instance at once:
// GET /health/ready. Registered first, so its preClose hook runs before every other.
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
}

export default fp(lifecyclePlugin, { name: 'lifecycle' })
