// The session cookie: @fastify/cookie + @fastify/session on the sessions table where sessions start
// and end (sign-in, Google sign-in, sign-out), and a reader of its own where a session is only read
// and rolled on (refresh, SSE, the account routes). Both sign with one signer: the first secret
// signs, cookies signed with a rotated-out one (SESSION_PREVIOUS_SECRETS) still verify.
//
// Cookies are decoded only in the scopes that register app.sessionCookie or app.cookieReader:
// anywhere else (every Bearer call) @fastify/session would make, sign and hash a session for each
// request, only to drop it. Where a session is only read, its per-request session object would cost
// more than the rest of the request together: the reader reads the same rows and, when refresh
// rolls the session, sends the cookie @fastify/session would send.
import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'
import session from '@fastify/session'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { LiveSession } from '../services/sessions/store.ts'
import { createCookieSigner, type CookieSigner } from '../services/sessions/cookie-signer.ts'

export const SESSION_COOKIE = 'sid'
export const COOKIE_PATH = '/api/v1'
/** the session cookie's attributes but Secure and its expiry, wherever it is set (docs/security.md) */
const COOKIE_ATTRIBUTES = { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' } as const

/** a live session read from its cookie; renew: the cookie was signed with a rotated-out secret */
export interface CookieSession { session: LiveSession, renew: boolean }

declare module 'fastify' {
  interface FastifyInstance {
    /** @fastify/session and its cookie, for the route scopes that start or end sessions */
    sessionCookie: FastifyPluginAsync
    /** @fastify/cookie alone, for a scope that reads the session cookie itself (refresh, SSE) */
    cookieReader: FastifyPluginAsync
    /** in a cookieReader scope: the live session the request's signed session cookie names, or null */
    readSessionCookie: (request: FastifyRequest) => Promise<CookieSession | null>
    /** in a cookieReader scope: roll the session on and send its cookie again; false if it has ended meanwhile */
    rollSessionCookie: (reply: FastifyReply, cookie: CookieSession) => Promise<boolean>
  }
  interface Session {
    userId?: string
    publicId?: string
    refreshedAt?: number
  }
}

export interface SessionCookieOptions {
  session: { secret: string, previousSecrets: string[], idleTtl: number }
  /** ALLOW_HTTP: still issue the cookie (with its Secure flag) over plain HTTP */
  allowHttp: boolean
}

async function withSession (app: FastifyInstance, opts: SessionCookieOptions, signer: CookieSigner) {
  await app.register(cookie)
  await app.register(session, {
    secret: signer,
    cookieName: SESSION_COOKIE,
    store: app.sessions.store as never,
    saveUninitialized: false,
    rolling: false,
    cookie: {
      ...COOKIE_ATTRIBUTES,
      // @fastify/session refuses to set a Secure cookie on a plain-HTTP request; ALLOW_HTTP re-adds the flag below
      secure: !opts.allowHttp,
      // a remembered cookie lasts as long as an unused session (src/services/sessions/rows.ts)
      maxAge: opts.session.idleTtl * 1000
    }
  })
  // When the id changes (sign-in with an old cookie), @fastify/session clears the old cookie and sets
  // the new one in the same answer: keep only the last `sid`, so no client can take the cleared one.
  // ALLOW_HTTP: re-add the Secure flag @fastify/session leaves off over plain HTTP.
  app.addHook('onSend', async (_request, reply) => {
    const set = reply.getHeader('set-cookie')
    if (!set) return
    const list = Array.isArray(set) ? set.map(String) : [String(set)]
    const isSid = (c: string) => c.startsWith(`${SESSION_COOKIE}=`)
    let last = -1
    list.forEach((c, i) => { if (isSid(c)) last = i })
    reply.removeHeader('set-cookie')
    reply.header('set-cookie', list.filter((c, i) => !isSid(c) || i === last)
      .map((c) => opts.allowHttp && isSid(c) && !/;\s*Secure/i.test(c) ? `${c}; Secure` : c))
  })
}

async function sessionCookiePlugin (app: FastifyInstance, opts: SessionCookieOptions) {
  const { sessions } = app
  const signer = createCookieSigner([opts.session.secret, ...opts.session.previousSecrets])
  app.decorate('sessionCookie', fp(async (scope: FastifyInstance) => withSession(scope, opts, signer)))
  app.decorate('cookieReader', fp(async (scope: FastifyInstance) => { await scope.register(cookie) }))

  app.decorate('readSessionCookie', async (request: FastifyRequest): Promise<CookieSession | null> => {
    const value = request.cookies?.[SESSION_COOKIE]
    if (!value) return null
    const unsigned = signer.unsign(value)
    if (!unsigned.valid || !unsigned.value) return null
    const live = await sessions.live(unsigned.value)
    return live ? { session: live, renew: unsigned.renew } : null
  })

  app.decorate('rollSessionCookie', async (reply: FastifyReply, { session }: CookieSession) => {
    const rolled = await sessions.roll(session)
    if (!rolled) return false
    // Secure always: ALLOW_HTTP still issues the cookie with its flag
    reply.setCookie(SESSION_COOKIE, signer.sign(session.sid), {
      ...COOKIE_ATTRIBUTES, secure: true, ...(rolled.expires ? { expires: rolled.expires } : {})
    })
    return true
  })
}

export default fp(sessionCookiePlugin, { name: 'session-cookie', dependencies: ['sessions'] })
