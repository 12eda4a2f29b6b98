// verifyWebhook: a delivery's Standard Webhooks signature checked before its body is trusted. The
// secret is `whsec_` + base64 of its bytes; `webhook-signature` holds one or more space-separated
// `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` (several while a secret is
// being rotated: any one matching is enough). The timestamp must be near now, so a captured delivery
// cannot be replayed later. node:crypto: the HMAC is synchronous and compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto'

export interface WebhookPayload {
  /** the event: report.ready, report.failed, webhook.test, ... */
  type: string
  /** when the event happened (ISO 8601) */
  timestamp: string
  data: Record<string, unknown>
}

export interface VerifyWebhookOptions {
  /** how far webhook-timestamp may be from now, in seconds (default 300) */
  toleranceSeconds?: number | undefined
  /** the time to compare with, in milliseconds since the epoch (default Date.now()) */
  now?: number | undefined
}

export type WebhookVerificationReason = 'missing-header' | 'bad-secret' | 'bad-timestamp' | 'timestamp-out-of-tolerance' | 'no-matching-signature' | 'bad-payload'

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason
  constructor (reason: WebhookVerificationReason, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
    this.reason = reason
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>

function header (headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value.join(' ') : value
}

/**
 * Checks a delivery and returns its parsed payload; throws WebhookVerificationError when the
 * headers are missing, the timestamp is too far from now, or no signature matches.
 * `headers`: a Headers instance or a plain object (e.g. Node's `req.headers`); `body`: the raw body
 * exactly as received (string or bytes), before any JSON parsing.
 */
export function verifyWebhook (secret: string, headers: HeaderSource, body: string | Uint8Array, opts: VerifyWebhookOptions = {}): WebhookPayload {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing-header', 'webhook-id, webhook-timestamp and webhook-signature are required')
  }
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('bad-secret', 'the secret must start with whsec_')
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  if (key.length === 0) throw new WebhookVerificationError('bad-secret', 'the secret holds no bytes')
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('bad-timestamp', 'webhook-timestamp is not a number of seconds')
  const tolerance = opts.toleranceSeconds ?? 300
  const nowSeconds = Math.floor((opts.now ?? Date.now()) / 1000)
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('timestamp-out-of-tolerance', `webhook-timestamp is more than ${tolerance} s from now`)
  }

  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(bytes).digest()
  const matches = signatures.split(' ').some((entry) => {
    const comma = entry.indexOf(',')
    if (comma === -1 || entry.slice(0, comma) !== 'v1') return false
    const given = Buffer.from(entry.slice(comma + 1), 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw new WebhookVerificationError('no-matching-signature', 'no signature matches the secret and the body')

  let payload: unknown
  try {
    payload = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new WebhookVerificationError('bad-payload', 'the body is not JSON')
  }
  if (typeof payload !== 'object' || payload === null || typeof (payload as WebhookPayload).type !== 'string') {
    throw new WebhookVerificationError('bad-payload', 'the body is not {type, timestamp, data}')
  }
  return payload as WebhookPayload
}
