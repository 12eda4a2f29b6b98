// The Stripe client of the billing service: its options, its construction from the configuration,
// and the one way to call it, where Stripe's failures become a 503 for our client and a log line for
// us. No Fastify types here.
import Stripe from 'stripe'
import { ServiceUnavailable } from '../../errors.ts'

export interface BillingConfig {
  secretKey: string
  webhookSecret: string
  priceId: string
  /** API base for the client (tests point it at a local server); empty = Stripe's */
  apiUrl: string
}

export interface BillingLog {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

type StripeOptions = NonNullable<ConstructorParameters<typeof Stripe>[1]>

/** the client's options: Stripe's API, or STRIPE_API_URL's protocol, host and port */
export function stripeClientOptions (apiUrl: string): StripeOptions {
  // Retries reuse the request's idempotency key, so a retried POST never acts twice.
  const base: StripeOptions = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false }
  if (!apiUrl) return base
  const url = new URL(apiUrl)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  return {
    ...base,
    protocol,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : (protocol === 'http' ? 80 : 443)
  }
}

/** a 4xx answer other than 409 (idempotency conflict) and 429: asking again gets the same answer */
export function isRefusal (err: unknown): err is InstanceType<typeof Stripe.errors.StripeError> {
  return err instanceof Stripe.errors.StripeError && typeof err.statusCode === 'number' &&
    err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 409 && err.statusCode !== 429
}

export function createStripeClient (config: BillingConfig, log: BillingLog) {
  /** false without STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID: endpoints answer 503 */
  const configured = Boolean(config.secretKey && config.webhookSecret && config.priceId)
  const stripe = configured ? new Stripe(config.secretKey, stripeClientOptions(config.apiUrl)) : undefined

  /** the client; 503 `billing is not configured` without one */
  function client (): Stripe {
    if (!stripe) throw new ServiceUnavailable('billing is not configured')
    return stripe
  }

  /** a Stripe call; its failure is a 503 for our client, its details only in our log */
  async function call<T> (what: string, fn: (s: Stripe) => Promise<T>): Promise<T> {
    const s = client()
    try {
      return await fn(s)
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError) {
        // type, code, status and request id identify the failure; the message may quote our input
        log.error({ stripe: { type: err.type, code: err.code, statusCode: err.statusCode, requestId: err.requestId } }, `stripe ${what} failed`)
        throw new ServiceUnavailable('payment provider unavailable')
      }
      throw err
    }
  }

  return { configured, client, call }
}

export type StripeClient = ReturnType<typeof createStripeClient>
