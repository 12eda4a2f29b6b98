// app.checkOrigin: a cookie-authenticated state change must come from our own origin (the public URL
// or a CORS origin), as the browser says in Origin and Sec-Fetch-Site; see docs/security.md.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CrossSiteRequest } from '../errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** throws CrossSiteRequest for a request from another site */
    checkOrigin: (request: FastifyRequest) => void
  }
}

export interface OriginCheckOptions { allowedOrigins: string[] }

async function originCheckPlugin (app: FastifyInstance, opts: OriginCheckOptions) {
  const allowed = new Set(opts.allowedOrigins)
  app.decorate('checkOrigin', (request: FastifyRequest) => {
    const origin = request.headers.origin
    if (request.headers['sec-fetch-site'] === 'cross-site') throw new CrossSiteRequest()
    if (typeof origin === 'string' && !allowed.has(origin)) throw new CrossSiteRequest()
  })
}

export default fp(originCheckPlugin, { name: 'origin-check' })
