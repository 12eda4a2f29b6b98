// pino options: a request id on every line, and never a password, token, cookie or secret (docs/operations.md, Logs).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
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

// Mailed link secrets travel in the path: the pages the mails link to (/confirm/<secret>,
// /recovery/<secret>) and the API calls those pages make (/api/v1/auth/confirm/<secret>,
// /api/v1/auth/recovery/<secret>), and the alert digest's unsubscribe token (/unsubscribe/<token>,
// /api/v1/alerts/mail/unsubscribe/<token>: it stops a user's digest without a sign-in). Everything
// after such a segment is the link's (a mangled link may carry more segments), so all of it goes,
// and so does every query value of such a request (a mail client or a hand may have copied the
// secret there). The segment is found in the decoded path too,
// so that a percent-encoded spelling hides nothing. Elsewhere, named secret parameters go (a browser
// EventSource carries its token in the query string), and any value that holds a link path.
const LINK_PATH = /^(.*?\/(?:confirm|recovery|unsubscribe)\/)(.*)$/is
const NOT_A_SECRET = /^resend\/?$/i
const SECRET_PARAM = /^(?:token|access_token|credential|secret|hash)$/i
const HOLDS_LINK = /(?:confirm|recovery|unsubscribe)(?:\/|%2f)/i

function decoded (text: string): string {
  if (!text.includes('%')) return text
  try { return decodeURIComponent(text) } catch { return text /* not valid percent-encoding: matched as it is */ }
}

/** the path with everything after a link segment redacted, and whether it had one */
function redactPath (path: string): [string, boolean] {
  const link = LINK_PATH.exec(decoded(path))
  return link && !NOT_A_SECRET.test(link[2]) ? [`${link[1]}${CENSOR}`, true] : [path, false]
}

function redactQuery (query: string, all: boolean): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq === -1) return all && pair ? CENSOR : pair
    const value = pair.slice(eq + 1)
    const secret = all || SECRET_PARAM.test(pair.slice(0, eq)) || HOLDS_LINK.test(value)
    return secret ? `${pair.slice(0, eq + 1)}${CENSOR}` : pair
  }).join('&')
}

export function redactUrl (url: string): string {
  const hash = url.indexOf('#')
  const beforeHash = hash === -1 ? url : url.slice(0, hash)
  const q = beforeHash.indexOf('?')
  const [path, link] = redactPath(q === -1 ? beforeHash : beforeHash.slice(0, q))
  const query = q === -1 ? '' : `?${redactQuery(beforeHash.slice(q + 1), link)}`
  // a fragment never reaches a server from a browser; one that does is treated like the query
  const fragment = hash === -1 ? '' : `#${link ? CENSOR : url.slice(hash + 1)}`
  return path + query + fragment
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

export function loggerOptions (level: string, format: { pretty?: boolean } = {}): FastifyServerOptions['logger'] {
  if (level === 'silent') return false
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { err: serializeError as never, req: serializeRequest as never },
    // redaction and the serializers run before the transport, so a pretty line hides what JSON hides
    ...(format.pretty ? { transport: { target: 'pino-pretty', options: PRETTY } } : {})
  }
}

// One line a record: the time, the level, the message; a request's line says it all in its message.
const PRETTY = { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId,req,res,responseTime', singleLine: true }

/**
 * Who a request acted as, for its log lines: the user's id once it authenticated, and an API key's
 * id for a key's request. Never an e-mail address: an id leads to the account without putting
 * personal data in the log (docs/operations.md, Logs).
 */
export function actorOf (request: FastifyRequest): { userId: string, keyId?: string } | undefined {
  const user = (request as { user?: { id?: unknown, apiKey?: { id: string } } | null }).user
  if (!user || typeof user.id !== 'string') return undefined
  return user.apiKey ? { userId: user.id, keyId: user.apiKey.id } : { userId: user.id }
}

/**
 * The request lines of the JSON log: Fastify's "incoming request" and "request completed", the
 * completed line with the user's id (and an API key's) when the request authenticated.
 */
export class RequestLines extends LogController {
  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { res: reply, responseTime: reply.elapsedTime, ...actorOf(request) }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}

/**
 * The request lines when a person reads the log: one line per request, written when it is answered
 * (`GET /api/v1/auth/info 200 3.1 ms`), instead of Fastify's "incoming request" and "request
 * completed". JSON logs keep both: there a request that never finishes must still show up.
 */
export class OneLineRequests extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = `${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms`
    const fields = { res: reply, responseTime: reply.elapsedTime, ...actorOf(request) }
    if (error) reply.log.error({ ...fields, err: error }, line)
    else reply.log.info(fields, line)
  }
}

function installed (name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name)
    return true
  } catch {
    return false
  }
}

export interface Terminal {
  level: string
  production: boolean
  /** whether stdout is a terminal (process.stdout.isTTY) */
  isTTY: boolean | undefined
  /** whether pino-pretty can be loaded (it is a development dependency) */
  prettyInstalled?: boolean
}

/**
 * The logging options of a server whose output a person reads: stdout is a terminal and this is not
 * production. Then one line per request, pretty-printed by pino-pretty when it is installed; anything
 * else (production, a pipe, a file, a test) gets the JSON lines a machine reads (docs/operations.md,
 * Logs). Empty: the app's defaults stay.
 */
export function terminalLogging (t: Terminal): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (t.production || t.isTTY !== true) return {}
  return {
    logger: loggerOptions(t.level, { pretty: t.prettyInstalled ?? installed('pino-pretty') }),
    logController: new OneLineRequests()
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
