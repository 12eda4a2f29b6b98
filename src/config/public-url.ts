// Where people reach this deployment (docs/decisions/running-it.md, Deployment): PUBLIC_URL, or in
// development, unset, the listener itself. Cookies, the Origin check, mailed links and passkeys are
// all bound to this one origin, so in development it follows HOST and PORT: a second server on
// another port works without a second setting. Production has no such default
// (src/config/production.ts refuses it).
import { isIP } from 'node:net'
import type { Env } from '../../schemas/env.ts'

// the names of this machine that the development certificate carries as localhost (src/tls.ts)
const THIS_MACHINE = new Set(['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'])

/** PUBLIC_URL without its trailing slash, or, unset, http(s)://localhost:PORT (HOST when it names another address) */
export function publicUrlOf (e: Env): string {
  if (e.PUBLIC_URL) return e.PUBLIC_URL.replace(/\/+$/, '')
  const host = THIS_MACHINE.has(e.HOST) ? 'localhost' : isIP(e.HOST) === 6 ? `[${e.HOST}]` : e.HOST
  return `${e.TLS === 'off' ? 'http' : 'https'}://${host}:${e.PORT}`
}

/** the origin's port as a number: the explicit one, else the scheme's (443, 80) */
export function portOf (origin: URL): number {
  return Number(origin.port || (origin.protocol === 'https:' ? 443 : 80))
}
