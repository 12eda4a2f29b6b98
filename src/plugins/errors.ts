// One error handler and one 404 for the whole app: every error leaves in the GeneralError shape, or
// on form endpoints as an HTTP 200 FormResult naming the first bad field.
import type { Duplex } from 'node:stream'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseDown } from '../db/client.ts'
import { fastifyClientErrors, isOwnError, socketClientErrors, statusMessages } from '../errors.ts'
import { fieldErrorFor } from '../services/accounts/form-errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a form endpoint: validation failures answer HTTP 200 {status:"error", fieldError} */
    form?: boolean
  }
}

function send (reply: FastifyReply, code: number, message: string) {
  return reply.code(code).send({ code, message })
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs
 * (a malformed URL, a path parameter over maxParamLength). Without it they leave in Fastify's shape.
 */
export function frameworkErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const known = error.code ? fastifyClientErrors[error.code] : undefined
  return send(reply, known?.code ?? 400, known?.message ?? 'bad request')
}

/**
 * Fastify's `clientErrorHandler` option: an HTTP/1.1 request Node cannot parse never becomes a
 * request; answer on the socket in the GeneralError shape, as Fastify would in its own.
 */
export function clientErrorHandler (err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [code, status, message] = socketClientErrors[err.code ?? ''] ?? [400, 'Bad Request', 'bad request']
  const body = JSON.stringify({ code, message })
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
      const v = error.validation[0]
      const where = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.') ||
        (v.params as { missingProperty?: string })?.missingProperty || error.validationContext || 'request'
      return send(reply, 400, `${error.validationContext ?? 'request'} ${where}: ${v.message ?? 'is invalid'}`.slice(0, 300))
    }
    const known = error.code ? fastifyClientErrors[error.code] : undefined
    if (known) return send(reply, known.code, known.message)

    const status = error.statusCode ?? 500
    if (status >= 500 || status < 400) {
      if (isDatabaseDown(error)) {
        request.log.warn({ err: error }, 'database unavailable')
        return send(reply, 503, 'service unavailable')
      }
      if (status === 503) return send(reply, 503, isOwnError(error) ? error.message : 'service unavailable')
      // something the service fetches for the client failed (GET /images): our wording, not the upstream's
      if (status === 502 && isOwnError(error)) return send(reply, 502, error.message)
      request.log.error({ err: error }, 'request failed')
      return send(reply, 500, 'internal error')
    }
    if (status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '60')
    return send(reply, status, isOwnError(error) ? error.message : (statusMessages[status] ?? 'bad request'))
  })

  app.setNotFoundHandler(function notFound (_request, reply) {
    return send(reply, 404, 'not found')
  })
}

export default fp(errorsPlugin, { name: 'errors' })
