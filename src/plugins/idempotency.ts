// `Idempotency-Key` on the routes with `config.idempotent` (docs/decisions/programs.md, Idempotency
// keys). The onRoute hook adds to those routes only: a preHandler, after the route's
// authentication, validation and own preHandlers, that claims the key or answers without running
// the handler (the stored answer with `Idempotent-Replayed: true`, 409 while the first request
// runs, 422 for another request); and an onSend hook that keeps the answer of a claimed request, or
// gives the key up when the answer says nothing was done (5xx, 429, 402), so that a retry does the
// work. A request without the header costs one header read, and in onSend one WeakMap lookup that
// finds no claim.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import { GeneralErrorSchema } from '../../schemas/common.ts'
import { BadRequest, IdempotencyKeyInUse, IdempotencyKeyReused } from '../errors.ts'
import { createIdempotencyService, requestHash, type Claim, type IdempotencyService } from '../services/idempotency/index.ts'

declare module 'fastify' {
  interface FastifyInstance { idempotency: IdempotencyService }
}

export interface IdempotencyOptions { now?: () => number }

const HEADER = 'idempotency-key'
/** 1 to 255 printable ASCII characters */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/
export const INVALID_KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 printable ASCII characters'
/** the answer's headers a replay repeats */
const KEPT_HEADERS = ['content-type', 'location']
const PRUNE_MS = 10 * 60_000

/** answers that say nothing was done, and that a retry may turn into a success: the key is released */
export const releases = (statusCode: number) => statusCode >= 500 || statusCode === 429 || statusCode === 402

async function idempotencyPlugin (app: FastifyInstance, opts: IdempotencyOptions) {
  const service = createIdempotencyService({ database: app.database, now: opts.now })
  app.decorate('idempotency', service)
  const claims = new WeakMap<FastifyRequest, Claim>()

  const claimKey: preHandlerAsyncHookHandler = async function (request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers[HEADER]
    if (key === undefined) return
    if (typeof key !== 'string' || !VALID_KEY.test(key)) throw new BadRequest(INVALID_KEY_MESSAGE)
    // the key is the user's: a route that authenticated nobody has nothing to key it by
    const userId = request.user?.id
    if (userId === undefined) return
    const hash = requestHash(request.method, request.url, request.body)
    const outcome = await service.claim(userId, key, hash)
    switch (outcome.kind) {
      case 'mismatch': throw new IdempotencyKeyReused()
      case 'running': throw new IdempotencyKeyInUse()
      case 'replay': {
        const { statusCode, headers, body } = outcome.answer
        reply.code(statusCode).headers(headers).header('idempotent-replayed', 'true')
        return reply.send(body)
      }
      case 'claimed': claims.set(request, { userId, key, hash, claimedAt: outcome.claimedAt })
    }
  }

  const keepAnswer: onSendAsyncHookHandler<unknown> = async function (request, reply, payload) {
    const claim = claims.get(request)
    if (claim === undefined) return payload
    claims.delete(request)
    try {
      if (releases(reply.statusCode)) {
        await service.release(claim)
      } else {
        const headers: Record<string, string> = {}
        for (const name of KEPT_HEADERS) {
          const value = reply.getHeader(name)
          if (value !== undefined) headers[name] = String(value)
        }
        const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : ''
        await service.complete(claim, { statusCode: reply.statusCode, headers, body })
      }
    } catch (err) {
      // The answer goes out all the same; the claim stays until its lease ends, and then a retry
      // does the work again.
      request.log.warn({ err }, 'idempotency key answer not stored')
    }
    return payload
  }

  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return
    const asList = <T> (hooks: T | T[] | undefined): T[] => hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
    route.preHandler = [...asList(route.preHandler), claimKey]
    route.onSend = [...asList(route.onSend), keepAnswer]
    // the answers are in the route's schema, hence in the OpenAPI document
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (response) {
      const added = Object.fromEntries([400, 409, 422].filter((code) => !response[code]).map((code) => [code, GeneralErrorSchema]))
      route.schema = { ...route.schema, response: { ...response, ...added } }
    }
  })

  const pruner = setInterval(() => {
    service.prune().catch((err) => app.log.warn({ err }, 'pruning idempotency keys failed'))
  }, PRUNE_MS)
  pruner.unref()
  app.addHook('onClose', async () => { clearInterval(pruner) })
}

export default fp(idempotencyPlugin, { name: 'idempotency', dependencies: ['db'] })
