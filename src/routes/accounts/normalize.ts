// E-mail addresses are compared trimmed and lower-cased; do it before validation so the
// format check sees the address the user meant.
import type { FastifyRequest } from 'fastify'

export async function normalizeEmail (request: FastifyRequest): Promise<void> {
  const body = request.body as { email?: unknown } | null
  if (body && typeof body === 'object' && typeof body.email === 'string') body.email = body.email.trim().toLowerCase()
}

export function requestMeta (request: FastifyRequest) {
  const ua = request.headers['user-agent']
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua : undefined }
}
