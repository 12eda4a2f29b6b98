// Security headers (helmet, HSTS over HTTPS), CORS only for configured origins, and the HTTPS guard:
// behind a TLS-terminating proxy (TLS=off) a request must say it came over HTTPS through a trusted
// proxy's X-Forwarded-Proto, unless ALLOW_HTTP (tests, benchmarks).
import type { IncomingMessage, ServerResponse } from 'node:http'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { HttpsRequired } from '../errors.ts'
import { GeneralErrorSchema } from '../../schemas/common.ts'

const EXPOSED_HEADERS = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed', 'Location']

export interface SecurityOptions {
  tls: boolean
  allowHttp: boolean
  corsOrigins: string[]
  /** requests under this prefix are API requests (JSON, event streams) … */
  apiPrefix: string
  /** … except these, which serve HTML documents (the docs UI) */
  documentPrefixes: string[]
  /** Google sign-in is configured (GOOGLE_CLIENT_IDS): the pages may load Google Identity Services */
  googleSignIn?: boolean
}

const HSTS = { maxAge: 31536000, includeSubDomains: true }

// Google Identity Services: its script, its button's iframe and the calls it makes (the sources
// Google documents for a CSP; its stylesheet is already covered by helmet's style-src https:). Only allowed when Google sign-in is configured, so a
// deployment without it trusts no third-party script at all.
const GIS = 'https://accounts.google.com/gsi/'

/** helmet for the HTML documents: its defaults, with the dashboard's image and fetch sources */
export function documentHelmet (googleSignIn = false): HelmetOptions {
  const google = googleSignIn ? [GIS] : []
  return {
    hsts: HSTS,
    contentSecurityPolicy: {
      directives: {
        'default-src': ["'self'"],
        // profile images come through GET /api/v1/images, so no other host learns who views them
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'", ...google],
        ...(googleSignIn
          ? { 'script-src': ["'self'", `${GIS}client`], 'frame-src': ["'self'", GIS] }
          : {})
      }
    },
    // the Google sign-in popup talks back to this page through window.opener
    ...(googleSignIn ? { crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' as const } } : {})
  }
}

export const DOCUMENT_HELMET: HelmetOptions = documentHelmet(false)

/** helmet for API answers: nothing may load from or frame them; no document-only headers */
export const API_HELMET: HelmetOptions = {
  hsts: HSTS,
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  frameguard: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false
}

async function securityPlugin (app: FastifyInstance, opts: SecurityOptions) {
  // The API speaks JSON: a text/plain body is 415, not a string handed to a schema (docs/architecture.md, Security rules).
  app.removeContentTypeParser('text/plain')
  // helmet's headers depend on its options alone: worked out once here, not by running helmet on
  // every request. They go among the reply's headers, not on the raw response as helmet puts them:
  // with no header set on the raw response, Node writes the head from Fastify's header object
  // directly instead of copying every header into its own table first (the SSE route, which hijacks
  // its reply, sends the reply's headers itself).
  // Two sets. API answers (JSON, event streams) get the headers that protect an API response (OWASP
  // REST Security Cheat Sheet): a CSP that allows nothing and no framing, HSTS, nosniff, same-origin
  // resource policy, no referrer. The headers that only mean something for an HTML document (a page
  // CSP, COOP, Origin-Agent-Cluster, DNS prefetch, IE download options, X-XSS-Protection, Flash/PDF
  // cross-domain policies) go on the documents only: the dashboard and the docs UI. On JSON they would
  // make every answer about 430 bytes longer and cost a bare route a third of its throughput (see
  // docs/benchmarks.md, Where a request's cost goes).
  // HSTS only on answers that travel over HTTPS (the socket's TLS, or a trusted proxy's
  // X-Forwarded-Proto): RFC 6797 7.2 forbids it on plain HTTP, where a client must ignore it anyway.
  const secure = { document: helmetHeaders(documentHelmet(opts.googleSignIn)), api: helmetHeaders(API_HELMET) }
  const plain = { document: withoutHsts(secure.document), api: withoutHsts(secure.api) }
  const { apiPrefix, documentPrefixes } = opts
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url
    const sets = request.protocol === 'https' ? secure : plain
    const document = !url.startsWith(apiPrefix) || documentPrefixes.some((prefix) => url.startsWith(prefix))
    reply.headers(document ? sets.document : sets.api)
    done()
  })
  if (opts.corsOrigins.length) {
    // a page of a listed origin reads what a program needs from an answer: its budget, when to retry,
    // whether it was a replay, where a created thing is (docs/integration.md)
    await app.register(cors, { origin: opts.corsOrigins, credentials: true, maxAge: 600, exposedHeaders: EXPOSED_HEADERS })
  }
  if (!opts.tls && !opts.allowHttp) {
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https') throw new HttpsRequired()
    })
    // so every route can answer 403 `https required`: its schema, hence the OpenAPI document, says so
    // (a copy: route schemas are shared constants, and an app with ALLOW_HTTP has no such answer)
    app.addHook('onRoute', (route) => {
      const response = route.schema?.response as Record<string, unknown> | undefined
      if (response && !response[403]) route.schema = { ...route.schema, response: { ...response, 403: GeneralErrorSchema } }
    })
  }
}

/**
 * The headers helmet sets with these options, their names in lower case: Fastify lower-cases every
 * name it is given on every request, and a name already in lower case comes back as the same string,
 * where a mixed-case one becomes a new string that V8 hashes and looks up again each time.
 */
export function helmetHeaders (options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const res = {
    setHeader: (name: string, value: string) => { headers[name.toLowerCase()] = value },
    removeHeader: (name: string) => { delete headers[name.toLowerCase()] }
  }
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => {})
  return headers
}

function withoutHsts (headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'strict-transport-security'))
}

export default fp(securityPlugin, { name: 'security' })
