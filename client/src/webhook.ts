// verifyWebhook: a delivery's Standard Webhooks signature checked before its body is trusted. The
// secret is `whsec_` + base64 of its bytes, or the base64 alone (the official Standard Webhooks
// libraries take both); `webhook-signature` holds one or more space-separated
// `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` (several while a secret is
// being rotated: any one matching is enough). The timestamp must be near now, so a captured delivery
// cannot be replayed later. node:crypto: the HMAC is synchronous and compared in constant time.
// The payload's type is the union of the events the OpenAPI document lists under `webhooks`, so a
// `switch (event.type)` narrows `event.data` to that event's shape.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { webhooks } from './schema.d.ts'

/** one delivery's body, by event type: the request body of the document's webhook of that name */
export type WebhookEvent = {
  [Type in keyof webhooks]: webhooks[Type]['post']['requestBody']['content']['application/json']
}[keyof webhooks]

/** an event a webhook endpoint can subscribe to */
export type WebhookEventType = WebhookEvent['type']

/** a delivery's body: the same type as WebhookEvent */
export type WebhookPayload = WebhookEvent

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
export function verifyWebhook (secret: string, headers: HeaderSource, body: string | Uint8Array, opts: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing-header', 'webhook-id, webhook-timestamp and webhook-signature are required')
  }
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new WebhookVerificationError('bad-secret', 'the secret is not whsec_ and base64, nor base64 alone')
  const key = Buffer.from(encoded, 'base64')
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
  // the signature vouches for the body: the service sent it, in the shape the document gives its type
  const p = payload as { type?: unknown, data?: unknown } | null
  if (typeof p !== 'object' || p === null || typeof p.type !== 'string' || typeof p.data !== 'object' || p.data === null) {
    throw new WebhookVerificationError('bad-payload', 'the body is not {type, timestamp, data}')
  }
  return payload as WebhookEvent
}
