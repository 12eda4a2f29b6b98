// Starting a signed-in session, shared by password sign-in and Google sign-in (DESIGN 3.2, 8.4):
// a new session id every time, so a cookie planted before sign-in is worth nothing after it.
import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { AuthUser } from '../../plugins/auth.ts'

export async function startSession (request: FastifyRequest, userId: string, opts: { remember?: boolean } = {}): Promise<AuthUser> {
  await request.session.regenerate()
  request.session.set('userId', userId)
  request.session.set('publicId', randomUUID())
  if (opts.remember === false) request.session.options({ maxAge: 0 })
  await request.session.save()
  return { id: userId, sid: request.session.publicId! }
}
