// Issuing API keys in tests: through POST /auth/api-keys with a person's JWT; the key is registered
// with the app's log capture as a secret, so a log line that held it fails the test.
import type { FastifyInstance } from 'fastify'
import { logCapture } from '../helper.ts'

export interface Issued { id: string, key: string, prefix: string, auth: { authorization: string }, body: Record<string, unknown> }

export async function issueKey (app: FastifyInstance, auth: Record<string, string>, body: Record<string, unknown> = {}): Promise<Issued> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/api-keys', headers: auth, payload: { name: 'a program', scopes: ['reports:read'], ...body } })
  if (res.statusCode !== 201) throw new Error(`issuing a key failed: ${res.statusCode} ${res.body}`)
  const issued = res.json()
  logCapture(app)?.secret(issued.key)
  return { id: issued.id, key: issued.key, prefix: issued.prefix, auth: { authorization: `Bearer ${issued.key}` }, body: issued }
}

export const FORBIDDEN = { code: 403, message: 'access denied' }
export const UNAUTHORIZED = { code: 401, message: 'access denied', reason: 'unauthenticated' }
