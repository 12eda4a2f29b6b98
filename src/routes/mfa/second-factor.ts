// What every proof of the second factor ends with (a code or a recovery code here, a passkey
// assertion wherever passkeys are checked): the session moves to level 2, its proof of the owner is
// now, and the answer is a new JWT that says so (docs/decisions/accounts.md, Second factors).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Unauthorized } from '../../errors.ts'
import { refuseLevelOne } from '../../plugins/jwt.ts'
import { requestMeta } from '../accounts/normalize.ts'

/** the session of the request's user, proved by its second factor just now: its new level-2 token */
export async function completeSecondFactor (app: FastifyInstance, request: FastifyRequest): Promise<string> {
  const { id, sid } = request.user
  // the session may have ended while the proof was checked
  if (!await app.sessions.setLevel(sid, 2, true)) throw new Unauthorized()
  // a session at level 1 finishes its sign-in here: its device is recorded (src/routes/sessions/start.ts)
  if (request.user.aal === 1) await app.services.newDevices.signedIn(id, requestMeta(request))
  return app.issueToken({ id, sid, aal: 2 })
}

/**
 * onRequest of a route that takes a Bearer JWT or the session cookie (a browser that signed in with
 * its cookie and asked for no token). A cookie call must come from our own origin; the level gate
 * applies to both (src/plugins/jwt.ts).
 */
export function bearerOrCookie (app: FastifyInstance) {
  return async function authenticateEither (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.headers.authorization !== undefined) return app.authenticate(request, reply)
    app.checkOrigin(request)
    const found = await app.readSessionCookie(request)
    if (!found) throw new Unauthorized()
    const { userId, publicId, aal } = found.session
    if (aal === 1) refuseLevelOne(request)
    request.user = { id: userId, sid: publicId, aal }
  }
}
