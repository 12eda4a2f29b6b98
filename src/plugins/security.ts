// Security headers (helmet, HSTS included), CORS only for configured origins, and the HTTPS guard:
// behind a TLS-terminating proxy (TLS=off) a request must say it came over HTTPS through a trusted
// proxy's X-Forwarded-Proto, unless ALLOW_HTTP (tests, benchmarks).
import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { HttpsRequired } from '../errors.ts'

export interface SecurityOptions {
  tls: boolean
  allowHttp: boolean
  corsOrigins: string[]
}

async function securityPlugin (app: FastifyInstance, opts: SecurityOptions) {
  // The API speaks JSON: a text/plain body is 415, not a string handed to a schema (DESIGN 3.1, 8.8).
  app.removeContentTypeParser('text/plain')
  await app.register(helmet, {
    hsts: { maxAge: 31536000, includeSubDomains: true },
    contentSecurityPolicy: {
      directives: { 'default-src': ["'self'"], 'img-src': ["'self'", 'data:', 'https:'], 'connect-src': ["'self'"] }
    }
  })
  if (opts.corsOrigins.length) {
    await app.register(cors, { origin: opts.corsOrigins, credentials: true, maxAge: 600 })
  }
  if (!opts.tls && !opts.allowHttp) {
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https') throw new HttpsRequired()
    })
  }
}

export default fp(securityPlugin, { name: 'security' })
