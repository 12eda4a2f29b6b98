// A local stand-in for Stripe's API, for the official `stripe` client (STRIPE_API_URL points here).
// It answers the calls the billing service makes (customers, Checkout Sessions, portal sessions,
// subscriptions retrieve/update, metadata and cancel_at_period_end) and keeps every request, with its form body, so tests can check
// what the service sent. Like Stripe, a repeated Idempotency-Key gets the first success again.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StripeRequest {
  method: string
  path: string
  idempotencyKey: string | undefined
  authorization: string | undefined
  /** the form body, flattened as sent: `metadata[userId]`, `line_items[0][price]`, … */
  form: Record<string, string>
}

export type StripeObject = Record<string, unknown>

export interface SubscriptionFixture {
  id: string
  customer: string
  status?: string
  metadata?: Record<string, string>
  priceId?: string
  /** Unix seconds */
  currentPeriodEnd?: number
}

/** a subscription as the current API version renders it (current_period_end on its items) */
export function subscriptionObject (s: SubscriptionFixture): StripeObject {
  const periodEnd = s.currentPeriodEnd ?? Math.floor(Date.UTC(2030, 0, 1) / 1000)
  return {
    id: s.id,
    object: 'subscription',
    customer: s.customer,
    status: s.status ?? 'active',
    metadata: s.metadata ?? {},
    cancel_at_period_end: false,
    items: {
      object: 'list',
      data: [{
        id: `si_${s.id}`,
        object: 'subscription_item',
        price: { id: s.priceId ?? 'price_test_monthly', object: 'price' },
        quantity: 1,
        current_period_start: periodEnd - 30 * 86400,
        current_period_end: periodEnd
      }]
    }
  }
}

function stripeError (status: number, type: string, message: string) {
  return { status, body: { error: { type, message } } }
}

export async function startStripe (t?: { teardown: (fn: () => unknown) => void }) {
  const requests: StripeRequest[] = []
  const subscriptions = new Map<string, StripeObject>()
  const answered = new Map<string, { status: number, body: unknown }>()
  let seq = 0
  let failure: number | undefined

  function route (r: StripeRequest): { status: number, body: unknown } {
    if (failure) return stripeError(failure, 'api_error', 'the local Stripe is failing on purpose')
    const f = r.form
    const metadata = (prefix: string) => Object.fromEntries(Object.entries(f)
      .filter(([k]) => k.startsWith(`${prefix}[`)).map(([k, v]) => [k.slice(prefix.length + 1, -1), v]))
    if (r.method === 'POST' && r.path === '/v1/customers') {
      return { status: 200, body: { id: `cus_local${++seq}`, object: 'customer', email: f.email ?? null, metadata: metadata('metadata') } }
    }
    if (r.method === 'POST' && r.path === '/v1/checkout/sessions') {
      const id = `cs_test_local${++seq}`
      return {
        status: 200,
        body: { id, object: 'checkout.session', mode: f.mode, customer: f.customer, metadata: metadata('metadata'), url: `https://checkout.stripe.test/c/pay/${id}` }
      }
    }
    if (r.method === 'POST' && r.path === '/v1/billing_portal/sessions') {
      const id = `bps_local${++seq}`
      return { status: 200, body: { id, object: 'billing_portal.session', customer: f.customer, return_url: f.return_url, url: `https://billing.stripe.test/p/session/${id}` } }
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(r.path)
    if (sub) {
      const found = subscriptions.get(decodeURIComponent(sub[1]))
      if (!found) return stripeError(404, 'invalid_request_error', 'No such subscription')
      if (r.method === 'POST') {
        found.metadata = { ...(found.metadata as object), ...metadata('metadata') }
        if (f.cancel_at_period_end !== undefined) found.cancel_at_period_end = f.cancel_at_period_end === 'true'
      }
      return { status: 200, body: found }
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${r.method}: ${r.path})`)
  }

  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => { body += d })
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost')
      const form = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : body))
      const header = (name: string) => {
        const v = req.headers[name]
        return Array.isArray(v) ? v[0] : v
      }
      const r: StripeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        idempotencyKey: header('idempotency-key'),
        authorization: header('authorization'),
        form
      }
      requests.push(r)
      const key = r.idempotencyKey ? `${r.method} ${r.path} ${r.idempotencyKey}` : undefined
      const answer = (key && answered.get(key)) || route(r)
      // only successes are replayed: Stripe saves no result for a request that failed validation
      if (key && answer.status < 300) answered.set(key, answer)
      res.statusCode = answer.status
      res.setHeader('content-type', 'application/json')
      res.setHeader('request-id', `req_local${requests.length}`)
      // failures are final: the client must not spend the test's time on retries
      if (answer.status >= 400) res.setHeader('stripe-should-retry', 'false')
      res.end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = () => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  t?.teardown(close)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** subscriptions the API knows (GET /v1/subscriptions/:id, POST updates their metadata) */
    subscriptions,
    /** every request from now on answers this HTTP status (undefined: back to normal) */
    fail (status: number | undefined) { failure = status },
    /** the requests to one method and path */
    calls (method: string, path: string) { return requests.filter((r) => r.method === method && r.path === path) },
    close
  }
}

export type StripePeer = Awaited<ReturnType<typeof startStripe>>
