// Authentication: the session cookie (@fastify/cookie + @fastify/session on the sessions table) and
// Bearer JWTs (@fastify/jwt, HS256 pinned). `authenticate` is the onRequest hook of every protected
// scope; it checks the token's session against the in-memory ended set, never the database.
import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'
import session from '@fastify/session'
import jwt from '@fastify/jwt'
import { createVerifier } from 'fast-jwt'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { CrossSiteRequest, Unauthorized } from '../errors.ts'
import { SESSION_ENDED_CHANNEL, type LiveSession, type SessionService } from '../services/sessions.ts'
import { createCookieSigner, type CookieSigner } from '../services/cookie-signer.ts'
import { boundedMap } from '../services/bounded-map.ts'

export const SESSION_COOKIE = 'sid'
export const COOKIE_PATH = '/api/v1'
/** the session cookie's attributes (DESIGN 8.4) but Secure and its expiry, wherever it is set */
const COOKIE_ATTRIBUTES = { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' } as const

export interface AuthUser { id: string, sid: string }

const BEARER = /^Bearer\s+(\S+)\s*$/i

declare module '@fastify/jwt' {
  interface FastifyJWT {
    // iat may be set by a signer (tests back-date tokens); exp is always derived from it
    payload: { sub: string, sid: string, iat?: number }
    user: AuthUser
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionService
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** @fastify/session and its cookie, for the route scopes that register it (see below) */
    sessionCookie: FastifyPluginAsync
    /** @fastify/cookie alone, for a scope that reads the session cookie itself (refresh, SSE) */
    cookieReader: FastifyPluginAsync
    /** in a cookieReader scope: the live session the request's signed session cookie names, or null */
    readSessionCookie: (request: FastifyRequest) => Promise<CookieSession | null>
    /** readSessionCookie answered from memory, without a wait; undefined when it needs the database */
    readSessionCookieKept: (request: FastifyRequest) => CookieSession | null | undefined
    /** in a cookieReader scope: roll the session on and send its cookie again; false if it has ended meanwhile */
    rollSessionCookie: (reply: FastifyReply, cookie: CookieSession) => Promise<boolean>
    /** in a cookieReader scope: the user of a Bearer token if one is sent, else of the session cookie; null when neither */
    identify: (request: FastifyRequest) => Promise<AuthUser | null>
    issueToken: (user: AuthUser) => string
    /** DESIGN 8.10: a cookie-authenticated state change must come from our own origin */
    checkOrigin: (request: FastifyRequest) => void
  }
  interface Session {
    userId?: string
    publicId?: string
    refreshedAt?: number
  }
}

/** a live session read from its cookie; renew: the cookie was signed with a rotated-out secret */
export interface CookieSession { session: LiveSession, renew: boolean }

export interface AuthOptions {
  sessions: SessionService
  jwt: { secret: string, previousSecrets: string[], ttl: number }
  session: { secret: string, previousSecrets: string[], idleTtl: number }
  /** ALLOW_HTTP: still issue the cookie (with its Secure flag) over plain HTTP */
  allowHttp: boolean
  allowedOrigins: string[]
}

async function sessionCookie (app: FastifyInstance, opts: AuthOptions, signer: CookieSigner) {
  await app.register(cookie)
  await app.register(session, {
    // the first secret signs; cookies signed with a rotated-out one (SESSION_PREVIOUS_SECRETS) still verify
    secret: signer,
    cookieName: SESSION_COOKIE,
    store: opts.sessions.store as never,
    saveUninitialized: false,
    rolling: false,
    cookie: {
      ...COOKIE_ATTRIBUTES,
      // @fastify/session refuses to set a Secure cookie on a plain-HTTP request; ALLOW_HTTP re-adds the flag below
      secure: !opts.allowHttp,
      // a remembered cookie lasts as long as an unused session (src/services/sessions.ts)
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

async function authPlugin (app: FastifyInstance, opts: AuthOptions) {
  const { sessions } = opts
  app.decorate('sessions', sessions)

  // Cookies (@fastify/cookie) and the session cookie are decoded only in the scopes that use them
  // (sign-in, Google sign-in, sign-out), each registering app.sessionCookie: anywhere else (every
  // Bearer call) @fastify/session would make, sign and hash a session for each request, only to drop it.
  // one signer for every scope, so what it has computed is shared (src/services/cookie-signer.ts)
  const signer = createCookieSigner([opts.session.secret, ...opts.session.previousSecrets])
  app.decorate('sessionCookie', fp(async (scope: FastifyInstance) => sessionCookie(scope, opts, signer)))

  // Where a session is only read (refresh, SSE), the cookie is read without @fastify/session
  // (src/services/sessions.ts says why): the same signer, the same rows, and when refresh rolls the
  // session, the cookie @fastify/session would send. The library stays where sessions start and end.
  app.decorate('cookieReader', fp(async (scope: FastifyInstance) => { await scope.register(cookie) }))
  function verifiedSessionId (request: FastifyRequest) {
    const value = request.cookies?.[SESSION_COOKIE]
    if (!value) return null
    const unsigned = signer.unsign(value)
    return unsigned.valid && unsigned.value ? { sid: unsigned.value, renew: unsigned.renew } : null
  }
  async function readSessionCookie (request: FastifyRequest): Promise<CookieSession | null> {
    const cookie = verifiedSessionId(request)
    const live = cookie && await sessions.live(cookie.sid)
    return live ? { session: live, renew: cookie.renew } : null
  }
  app.decorate('readSessionCookie', readSessionCookie)
  // A refresh reads a session this process keeps with no promise to wait for: through the view it went
  // through five async steps, which cost about twice what the lookup itself does (README, Benchmarks).
  app.decorate('readSessionCookieKept', (request: FastifyRequest) => {
    const cookie = verifiedSessionId(request)
    if (!cookie) return null
    const live = sessions.liveKept(cookie.sid)
    return live ? { session: live, renew: cookie.renew } : live
  })
  app.decorate('rollSessionCookie', async (reply: FastifyReply, { session }: CookieSession) => {
    const rolled = await sessions.roll(session)
    if (!rolled) return false
    // Secure always: ALLOW_HTTP still issues the cookie with its flag (DESIGN 2)
    reply.setCookie(SESSION_COOKIE, signer.sign(session.sid), {
      ...COOKIE_ATTRIBUTES, secure: true, ...(rolled.expires ? { expires: rolled.expires } : {})
    })
    return true
  })

  await app.register(jwt, {
    secret: opts.jwt.secret,
    sign: { algorithm: 'HS256', expiresIn: opts.jwt.ttl },
    verify: { algorithms: ['HS256'], cache: true }
  })
  // Tokens signed with a rotated-out secret still verify until they expire (JWT_PREVIOUS_SECRETS).
  const previous = opts.jwt.previousSecrets.map((key) => createVerifier({ key, algorithms: ['HS256'], cache: true }))

  // Tokens verified already, until they expire: a Bearer request then costs a Map lookup rather than
  // a SHA-256 of the token (fast-jwt's cache key) and its checks. Bounded, oldest first out. Keyed by
  // the token's last 43 characters (an HS256 signature), the whole token then compared: every request
  // brings its token as a new string, which V8 hashes whole to look it up, 200 characters and more.
  const verified = boundedMap<{ token: string, id: string, sid: string, expMs: number }>(10_000)
  const signatureOf = (token: string) => token.slice(-43)

  function claimsOf (token: string): { id: string, sid: string, expMs: number } | null {
    const known = verified.get(signatureOf(token))
    if (known && known.token === token && known.expMs > Date.now()) return known
    let claims: Record<string, unknown> | undefined
    try {
      claims = app.jwt.verify<Record<string, unknown>>(token)
    } catch {
      for (const v of previous) {
        try { claims = v(token); break } catch {}
      }
    }
    if (!claims || typeof claims.sub !== 'string' || typeof claims.sid !== 'string') return null
    const entry = { token, id: claims.sub, sid: claims.sid, expMs: typeof claims.exp === 'number' ? claims.exp * 1000 : 0 }
    if (entry.expMs > 0) verified.set(signatureOf(token), entry)
    return entry
  }

  function verify (token: string): AuthUser | null {
    const claims = claimsOf(token)
    // the ended set is asked every time: a session can end while its tokens are still unexpired
    if (!claims || sessions.isEnded(claims.sid)) return null
    return { id: claims.id, sid: claims.sid }
  }

  // the token of `Authorization: Bearer <token>`; the scheme in any case, spaces around the token
  // (RFC 7235 2.1). The form every client sends is read without the regular expression; a token with
  // a space inside is no JWT and fails verification as the expression would fail it.
  function bearer (request: FastifyRequest): string | undefined {
    const h = request.headers.authorization
    if (typeof h !== 'string') return undefined
    if (h.startsWith('Bearer ') && h.charCodeAt(7) > 32 && h.charCodeAt(h.length - 1) > 32) return h.slice(7)
    const m = BEARER.exec(h)
    return m ? m[1] : undefined
  }

  app.decorate('authenticate', async (request: FastifyRequest) => {
    const token = bearer(request)
    const user = token ? verify(token) : null
    if (!user) throw new Unauthorized()
    request.user = user
  })

  app.decorate('identify', async (request: FastifyRequest) => {
    const token = bearer(request)
    if (token) return verify(token)
    const found = await readSessionCookie(request)
    return found ? { id: found.session.userId, sid: found.session.publicId } : null
  })

  // A token is a function of its claims alone (sub, sid, iat in whole seconds, exp = iat + JWT_TTL):
  // a session refreshed again within the same second gets the token it got the first time, the same
  // bytes a new signature would make, without signing again. Bounded, oldest first out.
  const issued = boundedMap<{ sub: string, iat: number, token: string }>(10_000)
  app.decorate('issueToken', (user: AuthUser) => {
    const iat = Math.floor(Date.now() / 1000)
    const known = issued.get(user.sid)
    if (known && known.iat === iat && known.sub === user.id) return known.token
    const token = app.jwt.sign({ sub: user.id, sid: user.sid, iat })
    issued.set(user.sid, { sub: user.id, iat, token })
    return token
  })

  const allowed = new Set(opts.allowedOrigins)
  app.decorate('checkOrigin', (request: FastifyRequest) => {
    const origin = request.headers.origin
    if (request.headers['sec-fetch-site'] === 'cross-site') throw new CrossSiteRequest()
    if (typeof origin === 'string' && !allowed.has(origin)) throw new CrossSiteRequest()
  })

  // Every instance learns of ended sessions through NOTIFY; on (re)connect it reloads what it may have missed.
  await sessions.loadEnded()
  await app.events.on(SESSION_ENDED_CHANNEL, (publicId) => sessions.onEndedNotice(publicId), () => {
    sessions.loadEnded().catch((err) => app.log.warn({ err }, 'reloading ended sessions failed'))
  })
  const pruner = setInterval(() => sessions.prune(), 60_000)
  pruner.unref()
  app.addHook('onClose', async () => { clearInterval(pruner) })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db', 'events'] })
