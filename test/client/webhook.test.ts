// The typed client's verifyWebhook against Standard Webhooks signatures computed here with
// node:crypto (and the specification's published example): one signature, two during a rotation,
// headers as a plain object or a Headers instance, the body as text or bytes; refused with a typed
// WebhookVerificationError for a wrong secret, a changed body, an old or future timestamp and
// missing headers.
import { createHmac, randomBytes } from 'node:crypto'
import t from '../tap.ts'
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../client/src/index.ts'

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const sign = (secret: string, id: string, timestamp: number, body: string) =>
  'v1,' + createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')

const secret = newSecret()
const now = Math.floor(Date.now() / 1000)
const payload = { type: 'report.ready', timestamp: new Date(now * 1000).toISOString(), data: { reportId: '2b0c5a8e-6d1f-4c55-9a0e-3f1d2f4b9c10', generatedAt: new Date(now * 1000).toISOString() } }
const body = JSON.stringify(payload)
const id = 'msg_2xYbN1c9Qe7'
const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': sign(secret, id, now, body) }

function refused (t: Tap, fn: () => unknown, reason: WebhookVerificationReason, what: string) {
  try {
    fn()
    t.fail(`${what}: accepted`)
  } catch (err) {
    t.ok(err instanceof WebhookVerificationError, `${what}: a WebhookVerificationError`)
    t.equal((err as WebhookVerificationError).reason, reason, `${what}: ${reason}`)
  }
}
type Tap = typeof t

t.test('a signed delivery gives its payload: plain headers or Headers, text or bytes', async (t) => {
  t.same(verifyWebhook(secret, headers, body), payload)
  t.same(verifyWebhook(secret, new Headers(headers), body), payload, 'a Headers instance')
  t.same(verifyWebhook(secret, { 'Webhook-Id': id, 'Webhook-Timestamp': String(now), 'Webhook-Signature': headers['webhook-signature'] }, body), payload, 'header names in any case')
  const bytes = new TextEncoder().encode(body)
  t.same(verifyWebhook(secret, headers, bytes), payload, 'a Uint8Array body')
  const inLargerBuffer = new Uint8Array(bytes.length + 8)
  inLargerBuffer.set(bytes, 4)
  t.same(verifyWebhook(secret, headers, inLargerBuffer.subarray(4, 4 + bytes.length)), payload, 'a view into a larger buffer')
})

t.test('the specification example: its signature matches (the body is not our payload shape)', async (t) => {
  const spec = { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' }
  t.equal(sign(spec.secret, spec.id, spec.timestamp, spec.body), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', 'the signature computed here is the published one')
  const specHeaders = { 'webhook-id': spec.id, 'webhook-timestamp': String(spec.timestamp), 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' }
  const at = spec.timestamp * 1000
  refused(t, () => verifyWebhook(spec.secret, specHeaders, spec.body, { now: at }), 'bad-payload', 'the published example')
  refused(t, () => verifyWebhook(spec.secret, { ...specHeaders, 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=' }, spec.body, { now: at }),
    'no-matching-signature', 'one bit changed')
})

t.test('during a rotation: either of two signatures is enough', async (t) => {
  const old = newSecret()
  const both = `${sign(old, id, now, body)} ${sign(secret, id, now, body)}`
  t.same(verifyWebhook(secret, { ...headers, 'webhook-signature': both }, body), payload, 'the new secret (second signature)')
  t.same(verifyWebhook(old, { ...headers, 'webhook-signature': both }, body), payload, 'the old secret (first signature)')
  refused(t, () => verifyWebhook(newSecret(), { ...headers, 'webhook-signature': both }, body), 'no-matching-signature', 'a third secret')
  const unknownVersion = `v2,${sign(secret, id, now, body).slice(3)} ${sign(old, id, now, body)}`
  refused(t, () => verifyWebhook(secret, { ...headers, 'webhook-signature': unknownVersion }, body), 'no-matching-signature', 'a v2 entry is not a v1 signature')
})

t.test('refusals: wrong secret, changed body or id, timestamps, missing headers', async (t) => {
  refused(t, () => verifyWebhook(newSecret(), headers, body), 'no-matching-signature', 'a wrong secret')
  refused(t, () => verifyWebhook(secret, headers, body.replace('report.ready', 'report.failed')), 'no-matching-signature', 'a changed body')
  refused(t, () => verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_other' }, body), 'no-matching-signature', 'another webhook-id')
  refused(t, () => verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,' }, body), 'no-matching-signature', 'an empty signature')

  // the clock given, so that the seconds the suite takes to get here do not move the 301 s
  const at = { now: now * 1000 }
  const old = now - 301
  const oldHeaders = { ...headers, 'webhook-timestamp': String(old), 'webhook-signature': sign(secret, id, old, body) }
  refused(t, () => verifyWebhook(secret, oldHeaders, body, at), 'timestamp-out-of-tolerance', 'a timestamp 301 s old')
  t.same(verifyWebhook(secret, oldHeaders, body, { ...at, toleranceSeconds: 600 }), payload, 'accepted with a larger tolerance')
  const future = now + 301
  refused(t, () => verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(future), 'webhook-signature': sign(secret, id, future, body) }, body, at),
    'timestamp-out-of-tolerance', 'a timestamp 301 s ahead')
  t.same(verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(now + 300), 'webhook-signature': sign(secret, id, now + 300, body) }, body, at),
    payload, 'a timestamp 300 s ahead: accepted')
  refused(t, () => verifyWebhook(secret, { ...headers, 'webhook-timestamp': 'yesterday' }, body), 'bad-timestamp', 'a timestamp that is not a number')

  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
    const { [name]: _, ...without } = headers
    refused(t, () => verifyWebhook(secret, without, body), 'missing-header', `without ${name}`)
  }
  refused(t, () => verifyWebhook(secret, new Headers(), body), 'missing-header', 'an empty Headers')
  refused(t, () => verifyWebhook('whsec_', headers, body), 'bad-secret', 'a secret of no bytes')
  refused(t, () => verifyWebhook('', headers, body), 'bad-secret', 'an empty secret')
  refused(t, () => verifyWebhook('whsec_not base64!', headers, body), 'bad-secret', 'a secret that is not base64')
})

t.test('a secret without the whsec_ prefix verifies, as the Standard Webhooks libraries take it', async (t) => {
  t.same(verifyWebhook(secret.slice('whsec_'.length), headers, body), payload, 'the base64 alone')
  refused(t, () => verifyWebhook(newSecret().slice('whsec_'.length), headers, body), 'no-matching-signature', 'another secret\'s base64 alone')
  const spec = { secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330 }
  const signed = JSON.stringify({ type: 'webhook.test', timestamp: new Date(spec.timestamp * 1000).toISOString(), data: { webhookId: '5f0e9a52-3c1d-4c6b-8d1e-0a2b3c4d5e6f' } })
  const specHeaders = { 'webhook-id': spec.id, 'webhook-timestamp': String(spec.timestamp), 'webhook-signature': sign(`whsec_${spec.secret}`, spec.id, spec.timestamp, signed) }
  t.match(verifyWebhook(spec.secret, specHeaders, signed, { now: spec.timestamp * 1000 }), { type: 'webhook.test' }, 'the specification\'s secret without its prefix')
})
