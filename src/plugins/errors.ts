// One error handler and one 404 for the whole app: every error leaves in the GeneralError shape, or
// on form endpoints as an HTTP 200 FormResult naming the first bad field.
import type { Duplex } from 'node:stream'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseDown } from '../db/client.ts'
import { ANSWERS, fastifyClientErrors, isOwnError, socketClientErrors, statusMessages, statusReasons, VALIDATION_REASON } from '../errors.ts'
import { fieldErrorFor } from '../services/accounts/form-errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a form endpoint: validation failures answer HTTP 200 {status:"error", fieldError} */
    form?: boolean
  }
}

function send (reply: FastifyReply, code: number, message: string, reason = statusReasons[code] ?? 'error') {
  // RFC 6750 3: a 401 names the scheme that would be accepted; `invalid_token` when one was sent and refused
  if (code === 401) {
    const sent = /^\s*bearer\s+\S/i.test(String(reply.request.headers.authorization ?? ''))
    reply.header('www-authenticate', sent ? 'Bearer error="invalid_token"' : 'Bearer')
  }
  return reply.code(code).send({ code, message, reason })
}

type AjvError = NonNullable<FastifyError['validation']>[number]

/**
 * The message of a request that does not match its schema: where (the part and the property's
 * path), then what is wrong in words a client acts on: the unknown property by its name, the allowed
 * values of an enumeration, the missing property; never a regular expression.
 */
export function validationMessage (errors: AjvError[], context: string | undefined): string {
  const first = errors[0]
  const part = context ?? 'request'
  const path = (first.instancePath || '').replace(/^\//, '').replace(/\//g, '.')
  const where = path ? `${part} ${path}` : part
  const params = first.params as Record<string, unknown>
  let what: string
  switch (first.keyword) {
    case 'additionalProperties': what = `unknown property '${String(params.additionalProperty)}'`; break
    case 'required': what = `missing property '${String(params.missingProperty)}'`; break
    case 'const':
    case 'enum': {
      // a union of literals fails on each of its branches, then on anyOf: every allowed value
      const allowed = errors.filter((e) => e.instancePath === first.instancePath && (e.keyword === 'const' || e.keyword === 'enum'))
        .flatMap((e) => e.keyword === 'const' ? [(e.params as { allowedValue: unknown }).allowedValue] : (e.params as { allowedValues: unknown[] }).allowedValues)
      what = `must be one of ${[...new Set(allowed.map(String))].join(', ')}`
      break
    }
    case 'pattern':
    case 'format': what = params.format === 'uuid' || /0-9a-f/.test(String(params.pattern)) ? 'must be a lowercase UUID' : `must be a valid ${String(params.format ?? 'value')}`; break
    // a value the schema rules out by name (a credit change of 0): ajv's own words are "must NOT be valid"
    case 'not': what = 'must not be this value'; break
    default: what = first.message ?? 'is invalid'
  }
  return `${where}: ${what}`.slice(0, 300)
}

/** a path parameter that is not an id this service prints: no such resource, the rule of every route */
const malformedId = (errors: AjvError[], context: string | undefined) =>
  context === 'params' && errors.some((e) => ['pattern', 'format', 'maxLength', 'minLength'].includes(e.keyword) && /^\/[A-Za-z]*[iI]d$/.test(e.instancePath))

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs
 * (a malformed URL, a path parameter over maxParamLength). Without it they leave in Fastify's shape.
 */
export function frameworkErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const known = error.code ? fastifyClientErrors[error.code] : undefined
  return send(reply, known?.code ?? 400, known?.message ?? 'bad request', known?.reason)
}

/**
 * Fastify's `clientErrorHandler` option: an HTTP/1.1 request Node cannot parse never becomes a
 * request; answer on the socket in the GeneralError shape, as Fastify would in its own.
 */
export function clientErrorHandler (err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [code, status, message] = socketClientErrors[err.code ?? ''] ?? [400, 'Bad Request', 'bad request']
  const body = JSON.stringify({ code, message, reason: statusReasons[code] })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${code} ${status}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}

async function errorsPlugin (app: FastifyInstance) {
  app.setErrorHandler(function handler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (error.validation) {
      if (request.routeOptions.config?.form) {
        const mapped = fieldErrorFor(error.validation, error.validationContext)
        if (mapped) return reply.code(200).send({ status: 'error', fieldError: mapped })
      }
      if (malformedId(error.validation, error.validationContext)) return send(reply, 404, 'not found: the id is not one this service issues (a lowercase UUID)')
      return send(reply, 400, validationMessage(error.validation, error.validationContext), VALIDATION_REASON)
    }
    const known = error.code ? fastifyClientErrors[error.code] : undefined
    if (known) return send(reply, known.code, known.message, known.reason)

    const status = error.statusCode ?? 500
    if (status >= 500 || status < 400) {
      if (isDatabaseDown(error)) {
        request.log.warn({ err: error }, 'database unavailable')
        return send(reply, 503, 'service unavailable')
      }
      if (status === 503) return send(reply, 503, isOwnError(error) ? error.message : 'service unavailable')
      // something the service fetches for the client failed (GET /images): our wording, not the upstream's
      if (status === 502 && isOwnError(error)) return send(reply, 502, error.message, ANSWERS[error.code]?.reason)
      request.log.error({ err: error }, 'request failed')
      return send(reply, 500, 'internal error')
    }
    if (status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '60')
    if (isOwnError(error)) return send(reply, status, error.message, ANSWERS[error.code]?.reason)
    return send(reply, status, statusMessages[status] ?? 'bad request')
  })

  app.setNotFoundHandler(function notFound (_request, reply) {
    return send(reply, 404, 'not found')
  })
}

export default fp(errorsPlugin, { name: 'errors' })
