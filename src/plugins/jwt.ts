// Bearer JWTs: @fastify/jwt with HS256 pinned. app.authenticate is the onRequest hook of every
// protected scope; it checks the token's session against the in-memory set of ended sessions, not
// the database (src/services/sessions/ended.ts), as long as that set's reconcile keeps up; while it
// does not, the database is asked (docs/decisions/sessions.md, Revocation cursor). Tokens signed
// with a rotated-out secret (JWT_PREVIOUS_SECRETS) still verify until they expire. A Bearer
// credential that begins with `pir_` is an API key, no JWT: it is handed to the key authenticator
// src/plugins/api-keys.ts installs (docs/decisions/programs.md, API keys), one string test before
// any JWT work.
//
// Levels (docs/decisions/accounts.md, Second factors): a session of an account with a second factor
// is at level 1 until the factor is proved, then 2, and its tokens carry the level as the `aal`
// claim; an account without one has no level, and its tokens no claim. A level-1 request reaches
// only the routes marked `config.beforeSecondFactor`; everything else answers 403 second factor
// required. The check runs only when the level is 1, so a request without a level pays one
// comparison.
import fp from 'fastify-plugin'
import jwt from '@fastify/jwt'
import { createVerifier } from 'fast-jwt'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isUuid } from '../../schemas/common.ts'
import { isDatabaseDown } from '../db/client.ts'
import { SecondFactorRequired, serviceUnavailable, Unauthorized } from '../errors.ts'
import { KEY_MARK } from '../services/api-keys/format.ts'
import { createViewCache } from '../services/caches/view-cache.ts'

/**
 * expMs: when the Bearer token it came with expires (none for the session cookie); an API key's
 * request: sid is the key's id (its streams end when it is revoked) and apiKey says what it may do
 * (a key has no level); aal: the session's level, absent for an account without a second factor
 */
export interface AuthUser { id: string, sid: string, expMs?: number, aal?: 1 | 2, apiKey?: { id: string, scopes: readonly string[] } }

/** 403 second factor required unless the route is open before the second factor; call only when the level is 1 */
export function refuseLevelOne (request: FastifyRequest): void {
  if (request.routeOptions.config.beforeSecondFactor !== true) throw new SecondFactorRequired()
}

/** an API key's request: its user, null when the key is refused (401); or it throws (403, 429) */
export type KeyAuthenticator = (request: FastifyRequest, reply: FastifyReply, key: string) => Promise<AuthUser | null>

const BEARER = /^Bearer\s+(\S+)\s*$/i

// The user and session a token names are ids in the one form the service prints them (isUuid: a
// lowercase UUID); anything else names nothing and is refused (401) here, so nothing later sees it:
// the ended set is keyed by that form (an upper-case sid of an ended session would miss it), and a
// database query with an id that is no UUID fails rather than finding nothing.
const canonicalId = (id: unknown): id is string => typeof id === 'string' && isUuid(id)

interface Claims { token: string, id: string, sid: string, expMs: number, aal: 1 | 2 | undefined }
// a token without an expiry would never expire; one without sid or sub names no session or user
const REQUIRED_CLAIMS = ['exp', 'sid', 'sub']

declare module '@fastify/jwt' {
  interface FastifyJWT {
    // iat may be set by a signer (tests back-date tokens); exp is always derived from it
    payload: { sub: string, sid: string, iat?: number, aal?: 1 | 2 }
    user: AuthUser
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook: request.user from a valid Bearer token of a live session, else 401 */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** in a cookieReader scope: the user of a Bearer token if one is sent, else of the session cookie; null when neither */
    identify: (request: FastifyRequest, reply: FastifyReply) => Promise<AuthUser | null>
    issueToken: (user: AuthUser) => string
    /** how Bearer API keys are checked (src/plugins/api-keys.ts); until set, every key is refused */
    acceptApiKeys: (authenticator: KeyAuthenticator) => void
  }
}

export interface JwtPluginOptions { secret: string, previousSecrets: string[], ttl: number }

async function jwtPlugin (app: FastifyInstance, opts: JwtPluginOptions) {
  const { sessions } = app
  await app.register(jwt, {
    secret: opts.secret,
    sign: { algorithm: 'HS256', expiresIn: opts.ttl },
    verify: { algorithms: ['HS256'], cache: true, requiredClaims: REQUIRED_CLAIMS }
  })
  const previous = opts.previousSecrets.map((key) => createVerifier({ key, algorithms: ['HS256'], cache: true, requiredClaims: REQUIRED_CLAIMS }))

  // Tokens verified already, until they expire: a Bearer request then costs a lookup rather than a
  // SHA-256 of the token (fast-jwt's cache key) and its checks (see docs/benchmarks.md, Caches on the
  // hot paths). Keyed by the token's last 43 characters (an HS256 signature), the whole token then
  // compared: every request brings its token as a new string, which V8 hashes whole to look it up.
  // An entry is good until its token's own expiry, checked on every hit, so the cache keeps no clock
  // of its own; expired entries leave as newer tokens push them out.
  const verified = createViewCache<Claims>({ maxEntries: 10_000, ttlMs: Infinity })
  const signatureOf = (token: string) => token.slice(-43)

  function claimsOf (token: string): Claims | null {
    const known = verified.peek(signatureOf(token))
    if (known && known.token === token && known.expMs > Date.now()) return known
    let claims: Record<string, unknown> | undefined
    try {
      claims = app.jwt.verify<Record<string, unknown>>(token)
    } catch {
      for (const v of previous) {
        try { claims = v(token); break } catch {}
      }
    }
    if (!claims || typeof claims.exp !== 'number' || !canonicalId(claims.sub) || !canonicalId(claims.sid)) return null
    const aal = claims.aal as Claims['aal']
    if (aal !== undefined && aal !== 1 && aal !== 2) return null
    const entry = { token, id: claims.sub, sid: claims.sid, expMs: claims.exp * 1000, aal }
    verified.set(signatureOf(token), entry)
    return entry
  }

  function verify (token: string): AuthUser | null {
    const claims = claimsOf(token)
    // the ended set is asked every time: a session can end while its tokens are still unexpired
    if (!claims || sessions.isEnded(claims.sid)) return null
    return { id: claims.id, sid: claims.sid, expMs: claims.expMs, aal: claims.aal }
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

  // A Bearer user (a JWT's or an API key's) while the ended set is out of sync: its session or key
  // asked of the database. 503 when the database cannot answer: never an unchecked request.
  async function checked (request: FastifyRequest, user: AuthUser): Promise<AuthUser | null> {
    try {
      return await sessions.endedInDatabase(user.sid) ? null : user
    } catch (err) {
      if (!isDatabaseDown(err)) request.log.warn({ err }, 'checking a session against the database failed')
      throw Object.assign(serviceUnavailable(), { cause: err })
    }
  }

  let keys: KeyAuthenticator = async () => null
  app.decorate('acceptApiKeys', (authenticator: KeyAuthenticator) => { keys = authenticator })

  app.decorate('authenticate', async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearer(request)
    let user = token ? (token.startsWith(KEY_MARK) ? await keys(request, reply, token) : verify(token)) : null
    if (user && !sessions.endedSetInSync()) user = await checked(request, user)
    if (!user) throw new Unauthorized()
    if (user.aal === 1) refuseLevelOne(request)
    request.user = user
  })

  app.decorate('identify', async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearer(request)
    let user: AuthUser | null
    if (token) {
      user = token.startsWith(KEY_MARK) ? await keys(request, reply, token) : verify(token)
      if (user && !sessions.endedSetInSync()) user = await checked(request, user)
    } else {
      const found = await app.readSessionCookie(request)
      user = found ? { id: found.session.userId, sid: found.session.publicId, aal: found.session.aal } : null
    }
    if (user?.aal === 1) refuseLevelOne(request)
    return user
  })

  // A token is a function of its claims alone (sub, sid, iat in whole seconds, exp = iat + JWT_TTL, aal):
  // a session refreshed again within the same second gets the token it got the first time, the same
  // bytes a new signature would make, without signing again. It pays when sessions refresh many times
  // a second (scenario 4: removing it cost 28 % / 46 % of req/s), which an instruction count under
  // valgrind, fifty times slower, cannot show (see docs/benchmarks.md, Caches on the hot paths).
  // The level is part of the key: a session raised to level 2 within the second gets a level-2 token.
  const issued = createViewCache<{ sub: string, iat: number, aal: 1 | 2 | undefined, token: string }>({ maxEntries: 10_000, ttlMs: 2_000 })
  app.decorate('issueToken', (user: AuthUser) => {
    const iat = Math.floor(Date.now() / 1000)
    const { aal } = user
    const known = issued.peek(user.sid)
    if (known && known.iat === iat && known.sub === user.id && known.aal === aal) return known.token
    // no level, no claim: the token of an account without a second factor is what it always was
    const token = app.jwt.sign(aal === undefined ? { sub: user.id, sid: user.sid, iat } : { sub: user.id, sid: user.sid, iat, aal })
    issued.set(user.sid, { sub: user.id, iat, aal, token })
    return token
  })
}

// identify falls back to the session cookie
export default fp(jwtPlugin, { name: 'jwt', dependencies: ['sessions', 'session-cookie'] })
