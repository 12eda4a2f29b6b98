// pino options: a request id on every line, and never a password, token, cookie or secret (DESIGN 8.9).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyBaseLogger, FastifyRequest, FastifyServerOptions } from 'fastify'
import pino, { type Bindings, type ChildLoggerOptions, type Logger as PinoLogger } from 'pino'

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

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogFn = (...args: unknown[]) => void

// Fastify makes a child logger (the request id bound) for every request. pino's child() costs about
// a microsecond, and at LOG_LEVEL=warn a request that goes well logs nothing: this stand-in makes the
// child only when a line at an enabled level is written, so such a request never pays for it.
class RequestLogger {
  private made: PinoLogger | undefined
  private readonly parent: PinoLogger
  private readonly bindings: Bindings
  private readonly options: ChildLoggerOptions

  constructor (parent: PinoLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.parent = parent
    this.bindings = bindings
    this.options = options
  }

  private real (): PinoLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options))
  }

  get level (): string { return this.made ? this.made.level : this.options.level ?? this.parent.level }
  set level (level: string) { this.real().level = level }

  isLevelEnabled (level: string): boolean {
    // a route's own logLevel (the health routes have one) is the child's, not the parent's
    return this.made || this.options.level !== undefined ? this.real().isLevelEnabled(level) : this.parent.isLevelEnabled(level)
  }

  private write (level: LevelName, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.real()[level] as LogFn)(...args)
  }

  fatal (...args: unknown[]): void { this.write('fatal', args) }
  error (...args: unknown[]): void { this.write('error', args) }
  warn (...args: unknown[]): void { this.write('warn', args) }
  info (...args: unknown[]): void { this.write('info', args) }
  debug (...args: unknown[]): void { this.write('debug', args) }
  trace (...args: unknown[]): void { this.write('trace', args) }
  silent (): void {}
  child (bindings: Bindings, options?: ChildLoggerOptions): PinoLogger { return this.real().child(bindings, options) }
}

/** Fastify's childLoggerFactory: a request's logger, made real by its first line at an enabled level */
export function requestLogger (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as PinoLogger
  // a logger that is not pino's (Fastify's no-op one when logging is off) makes its own children
  if (typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options)
  return new RequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger
}
