// Every answer carries its request id (X-Request-ID), the one every log line of the request has as
// `reqId` (genReqId in src/logger.ts), so a client's report of a failure leads to its log lines.
// Registered first, so that the 404 handler and the error handler's answers carry it too; the SSE
// route copies the reply's headers onto its stream.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { REQUEST_ID_HEADER } from '../logger.ts'

async function requestIdPlugin (app: FastifyInstance) {
  // a callback hook: every request pays for it, and an async one costs a promise more
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    done()
  })
}

export default fp(requestIdPlugin, { name: 'request-id' })
