// pino options: a request id on every line, and never a password, token, cookie or secret (DESIGN 8.9).
import type { FastifyServerOptions } from 'fastify'

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.credential',
  '*.secret',
  'password',
  'token',
  'credential'
]

export function loggerOptions (level: string): FastifyServerOptions['logger'] {
  if (level === 'silent') return false
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' }
  }
}
