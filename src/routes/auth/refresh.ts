// POST /auth/token/refresh (spec 4, DESIGN 3.2): a fresh JWT for the session the cookie names, and the
// session rolled on. The cookie is read by the auth plugin's own reader, not @fastify/session: a
// refresh is the one cookie call clients repeat at volume, and the library's per-request session
// object cost more than the rest of the refresh together (README, Benchmarks, scenario 4).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { Unauthorized } from '../../errors.ts'
import type { CookieSession } from '../../plugins/session-cookie.ts'
import type { Config } from '../../config.ts'
import { boundedMap, prefixedKeys } from '../../services/bounded-map.ts'
import { clientOf } from '../../plugins/rate-limit.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** the live session of the request's session cookie (refresh's scope only) */
    cookieSession: CookieSession | null
  }
}

const refreshRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  await app.register(app.cookieReader)
  app.decorateRequest('cookieSession', null)

  // The answer is serialized once per token, by the route's own serializer: a session refreshed again
  // within the same second gets the same token (issueToken), so the same bytes. Bounded, oldest out.
  const answers = boundedMap<{ token: string, body: string }>(10_000)
  const refreshKey = prefixedKeys('refresh:')

  app.post('/token/refresh', {
    schema: {
      tags: ['auth'],
      summary: 'A new JWT from the session cookie',
      response: { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    // DESIGN 8.5: refresh has a budget of its own, per session (per IP without one), in place of the
    // global one; its X-RateLimit-* headers count it. (The session is read on request, before it.)
    config: {
      rateLimit: {
        max: config.rateLimits.refresh,
        timeWindow: 60_000,
        keyGenerator: (r) => refreshKey(r.cookieSession?.session.publicId ?? clientOf(r))
      }
    },
    onRequest: [
      // callback hooks: neither waits for anything when the session is kept in memory (src/plugins/auth.ts)
      (request, _reply, done) => {
        app.checkOrigin(request)
        done()
      },
      (request, _reply, done) => {
        const kept = app.readSessionCookieKept(request)
        if (kept !== undefined) {
          request.cookieSession = kept
          done()
          return
        }
        app.readSessionCookie(request).then((found) => { request.cookieSession = found; done() }, done)
      }
    ]
  }, async (request, reply) => {
    const found = request.cookieSession
    if (!found) throw new Unauthorized()
    // Rolling expiry, at most once a minute (src/services/sessions.ts): the row and the cookie are
    // written again only then. A cookie signed with a rotated-out secret is sent again signed with
    // the current one.
    if ((app.sessions.rollDue(found.session.sid) || found.renew) && !await app.rollSessionCookie(reply, found)) {
      throw new Unauthorized()
    }
    const { userId, publicId } = found.session
    const token = app.issueToken({ id: userId, sid: publicId })
    let answer = answers.get(publicId)
    if (answer?.token !== token) {
      answer = { token, body: reply.serialize({ status: 'success', token }) as string }
      answers.set(publicId, answer)
    }
    return reply.type('application/json; charset=utf-8').send(answer.body as never)
  })
}

export default refreshRoutes
