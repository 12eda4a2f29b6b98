// POST /auth/token/refresh: a fresh JWT for the session the cookie names, and the session rolled on.
// The cookie is read by the session-cookie plugin's own reader, not @fastify/session: a refresh is
// the one cookie call clients repeat at volume (src/plugins/session-cookie.ts says why).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema } from '../../../schemas/common.ts'
import { Unauthorized } from '../../errors.ts'
import type { CookieSession } from '../../plugins/session-cookie.ts'
import type { Config } from '../../config.ts'
import { clientOf } from '../../plugins/rate-limit.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { refuseLevelOne } from '../../plugins/jwt.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** the live session of the request's session cookie (refresh's scope only) */
    cookieSession: CookieSession | null
  }
}

const refreshRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  await app.register(app.cookieReader)
  app.decorateRequest('cookieSession', null)

  app.post('/token/refresh', {
    schema: {
      operationId: 'refreshToken',
      security: [{ cookie: [] }],
      tags: ['auth'],
      summary: 'A new JWT from the session cookie',
      response: { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    // Refresh has a budget of its own, per session (per IP without one), in place of the global one;
    // its X-RateLimit-* headers count it. The session is read on request, before the limit is checked.
    config: {
      sessionCookie: true,
      rateLimit: {
        max: config.rateLimits.refresh,
        timeWindow: 60_000,
        keyGenerator: (r) => `refresh:${r.cookieSession?.session.publicId ?? clientOf(r)}`,
        errorResponseBuilder: (r) => limitRefused('refresh', r.cookieSession ? 'session' : 'ip')
      }
    },
    onRequest: [
      async (request) => { app.checkOrigin(request) },
      async (request) => { request.cookieSession = await app.readSessionCookie(request) }
    ]
  }, async (request, reply) => {
    const found = request.cookieSession
    if (!found) throw new Unauthorized()
    // a session at level 1 proves its second factor first (POST /auth/mfa/verify answers the token then)
    if (found.session.aal === 1) refuseLevelOne(request)
    // Rolling expiry, at most once a minute (src/services/sessions/rows.ts): the row and the cookie are
    // written again only then. A cookie signed with a rotated-out secret is sent again signed with
    // the current one.
    if ((app.sessions.rollDue(found.session.sid) || found.renew) && !await app.rollSessionCookie(reply, found)) {
      throw new Unauthorized()
    }
    const { userId, publicId, aal } = found.session
    // the request's log line names the user it refreshed for (src/logger.ts)
    request.user = { id: userId, sid: publicId, aal }
    return { status: 'success' as const, token: app.issueToken({ id: userId, sid: publicId, aal }) }
  })
}

export default refreshRoutes
