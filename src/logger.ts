// pino options: a request id on every line, and never a password, token, cookie or secret (DESIGN 8.9).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyRequest, FastifyServerOptions } from 'fastify'
import pino from 'pino'

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.credential',
  '*.secret',
  '*.authorization',
  '*.cookie',
  'password',
  'token',
  'credential',
  'secret',
  'authorization',
  'cookie'
]

const CENSOR = '[redacted]'

// Mailed link secrets travel in the path (/auth/confirm/<secret>, /auth/recovery/<secret>), and a
// browser EventSource may carry its token in the query string: neither reaches a log line.
export function redactUrl (url: string): string {
  return url
    .replace(/(\/auth\/(?:confirm|recovery)\/)(?!resend(?:[/?#]|$))[^/?#]+/, `$1${CENSOR}`)
    .replace(/([?&](?:token|access_token|credential|secret)=)[^&#]*/gi, `$1${CENSOR}`)
}

// Drizzle puts a failed query's parameters in its error message (session ids, password hashes,
// e-mail addresses): the query text stays, the values go.
function scrub (text: unknown): unknown {
  return typeof text === 'string' ? text.replace(/^params: .*$/gm, `params: ${CENSOR}`) : text
}

export function serializeError (err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown
  if (!out || typeof out !== 'object') return out
  const o = out as Record<string, unknown>
  o.message = scrub(o.message)
  o.stack = scrub(o.stack)
  for (const key of ['params', 'parameters']) if (key in o) o[key] = CENSOR
  return o
}

// Fastify's request serializer, with the URL redacted. Anything else logged under `req` (never a
// request) keeps only these fields too, so no header of it reaches the line.
function serializeRequest (req: Partial<FastifyRequest>) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined
  }
}

export function loggerOptions (level: string): FastifyServerOptions['logger'] {
  if (level === 'silent') return false
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { err: serializeError as never, req: serializeRequest as never }
  }
}

// Request ids: an incoming X-Request-ID (a proxy's or a client's) is kept when it is a short token of
// safe characters, so one id follows a request through the proxy's logs and ours; anything else
// (long, spaces, control characters, quotes) could forge or break log lines, so a fresh UUID
// replaces it. The id is in every line of the request (`reqId`) and answered as X-Request-ID.
export const REQUEST_ID_HEADER = 'x-request-id'
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

export function genReqId (req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER]
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}
