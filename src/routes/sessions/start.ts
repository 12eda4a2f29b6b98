// Starting a signed-in session, shared by password sign-in and Google sign-in:
// a new session id every time, so a cookie planted before sign-in is worth nothing after it.
import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { StaleCredential } from '../../errors.ts'
import type { AuthUser } from '../../plugins/jwt.ts'
import { ipPrefix, userAgentOf } from '../../services/sessions/ip-prefix.ts'
import type { Level, SigninMeta } from '../../services/sessions/rows.ts'
import { requestMeta } from '../accounts/normalize.ts'

declare module 'fastify' {
  interface Session {
    /** what the session's row records of its sign-in (src/services/sessions/rows.ts); not kept in its data */
    signin?: SigninMeta
  }
}

export type SigninMethod = 'password' | 'google' | 'passkey'

/**
 * The signed-in session of `userId`, or null when the credential its sign-in proved changed before
 * the session could be written (opts.credentialVersion: the users.credential_version read with that
 * credential; docs/decisions/accounts.md, Credential versions): the caller answers as a failed
 * sign-in. opts.aal: the level the session starts at, 1 for an account with a second factor, 2 for
 * a sign-in that proved one itself (a passkey), none for an account without one
 * (docs/decisions/accounts.md, Second factors)
 */
export async function startSession (request: FastifyRequest, userId: string,
  opts: { remember?: boolean, method: SigninMethod, credentialVersion: number, aal?: Level }): Promise<AuthUser | null> {
  // Only signed-in sessions are stored, so a session with a publicId came from the store (a cookie of
  // a live session): it gets a new id and the old one ends. Any other session was made for this
  // request, with an id @fastify/session just generated (a planted cookie of an unknown session is
  // not taken over): regenerating it would only cost a query that ends nothing.
  if (request.session.publicId) await request.session.regenerate()
  request.session.set('userId', userId)
  request.session.set('publicId', randomUUID())
  request.session.set('signin', {
    method: opts.method, userAgent: userAgentOf(request.headers['user-agent']), ipPrefix: ipPrefix(request.ip), credentialVersion: opts.credentialVersion,
    ...(opts.aal ? { aal: opts.aal } : {})
  })
  if (opts.remember === false) request.session.options({ maxAge: 0 })
  try {
    await request.session.save()
  } catch (err) {
    if (!(err instanceof StaleCredential)) throw err
    // an empty session in its place: nothing is stored, and no cookie is set
    await request.session.regenerate()
    return null
  }
  // A sign-in is complete here unless its second factor is still to come (level 1): then it is
  // complete at POST /auth/mfa/verify. A complete one records its device, and mails the holder a
  // notice when the device is new to the account (docs/decisions/accounts.md, Security notices).
  if (opts.aal !== 1) await request.server.services.newDevices.signedIn(userId, requestMeta(request))
  return opts.aal ? { id: userId, sid: request.session.publicId!, aal: opts.aal } : { id: userId, sid: request.session.publicId! }
}
