// What production must have, and the development conveniences it must not rely on. Every refusal is
// collected, so that an operator learns the whole list in one run.
import { isIP } from 'node:net'
import type { Env } from '../../schemas/env.ts'

export function productionProblems (e: Env): string[] {
  const problems: string[] = []
  const refuse = (name: string, why: string) => problems.push(`${name} ${why} in production`)
  if (!e.JWT_SECRET) refuse('JWT_SECRET', 'must be set')
  if (!e.SESSION_SECRET) refuse('SESSION_SECRET', 'must be set')
  if (!e.MFA_ENCRYPTION_KEY) refuse('MFA_ENCRYPTION_KEY', 'must be set')
  // (half a pair is refused everywhere, with the half that is missing)
  if (e.TLS === 'on' && !e.TLS_CERT_FILE && !e.TLS_KEY_FILE) refuse('TLS_CERT_FILE', 'and TLS_KEY_FILE must be set (no self-signed certificate)')
  // the HTTPS guard serves plain HTTP only from a trusted proxy that says the request came over HTTPS:
  // without one, a server that starts would answer every request 403
  if (e.TLS === 'off' && !e.TRUST_PROXY) refuse('TRUST_PROXY', 'must name the proxy that ends TLS when TLS is off')
  // mailed links and the Origin check are built from it
  if (!e.PUBLIC_URL) refuse('PUBLIC_URL', 'must be set to the public origin')
  else if (onLoopback(e.PUBLIC_URL)) refuse('PUBLIC_URL', 'must be the public origin, not localhost,')
  if (e.CAPTCHA === 'off') refuse('CAPTCHA', 'cannot be off')
  if (!e.CAPTCHA_VERIFY_URL || !e.CAPTCHA_SECRET) refuse('CAPTCHA_VERIFY_URL', 'and CAPTCHA_SECRET must be set')
  if (!e.SMTP_URL) refuse('SMTP_URL', 'must be set (no mail outbox)')
  if (e.ALLOW_HTTP) refuse('ALLOW_HTTP', 'cannot be true')
  if (e.DEMO_DATA === 'on') refuse('DEMO_DATA', 'cannot be on')
  // outbound requests (profile images) must not reach this machine's or its network's addresses
  if (e.OUTBOUND_ALLOW_PRIVATE === 'on') refuse('OUTBOUND_ALLOW_PRIVATE', 'cannot be on')
  // a bearer secret that a guess could find: the ingest endpoint writes profile data
  if (e.INGEST_TOKEN && e.INGEST_TOKEN.length < 32) refuse('INGEST_TOKEN', 'must be at least 32 characters')
  if (e.STRIPE_API_URL.startsWith('http:')) refuse('STRIPE_API_URL', 'must be https')
  return problems
}

/** the URL's host is this machine: localhost, a loopback or an unspecified address */
export function onLoopback (url: string): boolean {
  let host: string
  try { host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() } catch { return false }
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIP(host) === 4) return host.startsWith('127.') || host === '0.0.0.0'
  if (isIP(host) === 6) return host === '::1' || host === '::' || host.startsWith('::ffff:7f')
  return false
}
