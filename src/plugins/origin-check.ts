// app.checkOrigin: a cookie-authenticated state change must come from our own origin (the public URL
// or a CORS origin), as the browser says in Origin and Sec-Fetch-Site; see docs/security.md.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { onLoopback } from '../config/production.ts'
import { CrossSiteRequest } from '../errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** throws CrossSiteRequest for a request from another site */
    checkOrigin: (request: FastifyRequest) => void
  }
}

export interface OriginCheckOptions {
  allowedOrigins: string[]
  /**
   * development: the first request refused from another origin of this machine (the dashboard opened
   * at 127.0.0.1 or on another port than PUBLIC_URL's) logs one warning naming PUBLIC_URL
   */
  warnLocalMismatch?: boolean
}

async function originCheckPlugin (app: FastifyInstance, opts: OriginCheckOptions) {
  const allowed = new Set(opts.allowedOrigins)
  let warned = !opts.warnLocalMismatch
  app.decorate('checkOrigin', (request: FastifyRequest) => {
    const origin = request.headers.origin
    if (request.headers['sec-fetch-site'] === 'cross-site') throw new CrossSiteRequest()
    if (typeof origin === 'string' && !allowed.has(origin)) {
      if (!warned && onLoopback(origin)) {
        warned = true
        const publicOrigin = opts.allowedOrigins[0]
        request.log.warn({ origin, publicUrl: publicOrigin },
          `a request came from ${origin}, not PUBLIC_URL's ${publicOrigin}: sign-in works only at ${publicOrigin}/ (set PUBLIC_URL to the address people open)`)
      }
      throw new CrossSiteRequest()
    }
  })
}

export default fp(originCheckPlugin, { name: 'origin-check' })
