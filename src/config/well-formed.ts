// Values the schema cannot judge alone: URLs, proxy addresses, settings that come in sets, and
// lifetimes that must nest. Each check adds a line to `problems` and goes on, so that one run names
// every problem.
import { isIP } from 'node:net'
import type { Env } from '../../schemas/env.ts'

export const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean)

export function checkUrl (name: string, value: string, protocols: string[], problems: string[], orElse = ''): void {
  let ok = false
  try { ok = protocols.includes(new URL(value).protocol) } catch {}
  if (!ok) problems.push(`${name} must be a URL (${protocols.map((p) => p + '//').join(' or ')}…)${orElse ? ' ' + orElse : ''}`)
}

// proxy-addr (Fastify's trustProxy) takes addresses, CIDR ranges and a few names; anything else would
// throw a stack trace at start-up instead of this line.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])
function checkTrustProxy (entries: string[], problems: string[]): void {
  const ok = entries.every((entry) => {
    const [addr, bits, extra] = entry.split('/')
    const family = isIP(addr)
    return PROXY_NAMES.has(entry) || (family !== 0 && extra === undefined && (bits === undefined ||
      (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))))
  })
  if (!ok) problems.push('TRUST_PROXY must be a comma list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal')
}

/** the TLS files come in pairs; URLs, proxy addresses and previous secrets are well formed */
export function checkFormats (e: Env, problems: string[]): void {
  if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) {
    problems.push(`${e.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} must be set with ${e.TLS_CERT_FILE ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'}`)
  }
  if (e.PUBLIC_URL) checkUrl('PUBLIC_URL', e.PUBLIC_URL, ['https:', 'http:'], problems)
  if (e.REDIS_URL) checkUrl('REDIS_URL', e.REDIS_URL, ['redis:', 'rediss:'], problems)
  if (e.EVENTS_URL) checkUrl('EVENTS_URL', e.EVENTS_URL, ['redis:', 'rediss:'], problems, 'or empty for PostgreSQL LISTEN/NOTIFY')
  if (e.SMTP_URL) checkUrl('SMTP_URL', e.SMTP_URL, ['smtp:', 'smtps:'], problems)
  if (e.CAPTCHA_VERIFY_URL) checkUrl('CAPTCHA_VERIFY_URL', e.CAPTCHA_VERIFY_URL, ['https:', 'http:'], problems)
  checkTrustProxy(list(e.TRUST_PROXY), problems)
  if (!retrySchedule(e.WEBHOOK_RETRY_SCHEDULE)) problems.push('WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated whole seconds, each no earlier than the one before')
  for (const name of ['JWT_PREVIOUS_SECRETS', 'SESSION_PREVIOUS_SECRETS', 'MFA_PREVIOUS_ENCRYPTION_KEYS'] as const) {
    if (list(e[name]).some((k) => Buffer.byteLength(k) < 32)) problems.push(`${name} entries must be at least 32 bytes each`)
  }
}

/** WEBHOOK_RETRY_SCHEDULE: one to twenty whole seconds, each no earlier than the one before; null when malformed */
export function retrySchedule (value: string): number[] | null {
  const parts = value.split(',').map((x) => x.trim())
  if (parts.length < 1 || parts.length > 20 || !parts.every((x) => /^\d{1,7}$/.test(x))) return null
  const seconds = parts.map(Number)
  return seconds.every((s, i) => i === 0 || s >= seconds[i - 1]) ? seconds : null
}

/** a token never outlives the session that issued it */
export function checkLifetimes (e: Env, problems: string[]): void {
  if (e.JWT_TTL > e.SESSION_IDLE_TTL) problems.push('JWT_TTL must not exceed SESSION_IDLE_TTL')
  if (e.SESSION_IDLE_TTL > e.SESSION_ABSOLUTE_TTL) problems.push('SESSION_IDLE_TTL must not exceed SESSION_ABSOLUTE_TTL')
}

export function metricsPortOf (e: Env, problems: string[]): number | null {
  const port = e.METRICS_PORT ? Number(e.METRICS_PORT) : null
  if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
    problems.push('METRICS_PORT must be a port number')
    return null
  }
  return port
}

export function checkStripe (e: Env, problems: string[]): void {
  // Half a billing setup would take money without recording subscriptions (no webhook secret).
  const stripeParts = [e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET, e.STRIPE_PRICE_ID].filter(Boolean).length
  if (stripeParts > 0 && stripeParts < 3) {
    problems.push('STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID must be set together')
  }
  // The Stripe client takes a protocol, host and port, no path.
  if (e.STRIPE_API_URL && !/^https?:\/\/[^/?#]+\/?$/.test(e.STRIPE_API_URL)) {
    problems.push('STRIPE_API_URL must be http(s)://host[:port]')
  }
}
