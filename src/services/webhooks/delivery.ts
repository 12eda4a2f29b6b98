// Sending deliveries (docs/decisions/programs.md, Webhooks). The webhook_deliveries table is the
// queue: a pending delivery whose next_attempt_at has come is due. A worker claims due deliveries
// with `FOR UPDATE SKIP LOCKED` and, in the same statement, moves their next_attempt_at one lease
// ahead (longer than an attempt's deadline), so no other worker takes them while the attempt runs;
// a worker that dies mid-attempt leaves the lease to run out, and another worker makes the attempt
// again, with the same webhook-id. An attempt's outcome is written only if the delivery is still
// pending at the attempt count it was claimed with, so a late writer changes nothing.
// Outcomes: any 2xx delivered; 410 disables the endpoint and fails its pending deliveries; anything
// else (another status, a redirect, a timeout, a refused connection or address) is retried at
// created_at + the schedule's next step, and failed once the schedule is spent.
import type { Database } from '../../db/client.ts'
import { OutboundRefused } from '../../errors.ts'
import type { OutboundPost } from '../outbound/post.ts'
import { signatureHeader } from './signing.ts'

/** the start of an endpoint's answer that is read (the rest is dropped unread) */
const ANSWER_BYTES = 1024
/** a last_error is cut to this many characters */
const ERROR_CHARS = 300

export interface DelivererDeps {
  database: Database
  post: OutboundPost
  /** seconds after a delivery's creation at which each attempt is due (config.webhooks.retryScheduleS) */
  retryScheduleS: number[]
  /** how long a claim keeps other workers off a delivery, in ms: longer than an attempt's deadline */
  leaseMs: number
  /** the clock the webhook-timestamp header is read from (ms since the epoch) */
  now?: () => number
  log?: { warn: (o: object, m: string) => void }
}

/** what a worker already sends, for a fair claim (see claim) */
export interface Fairness {
  /** endpoints this worker is sending to now */
  busyEndpoints: Iterable<string>
  /** accounts with attempts in flight here, and how many */
  busyAccounts: Map<string, number>
  /** attempts in flight one account may have here */
  perAccount: number
}

const NO_FAIRNESS: Fairness = { busyEndpoints: [], busyAccounts: new Map(), perAccount: 1_000_000 }

/** due rows a claim looks at */
const SCAN_ROWS = 200

export interface Claimed {
  id: string
  endpoint_id: string
  user_id: string
  body: string
  attempts: number
  url: string
  secret: string
  previous_secret: string | null
  previous_until: Date | string | null
  disabled_at: Date | string | null
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'disabled' | 'lost'

export function createDeliverer (deps: DelivererDeps) {
  const { database, post, retryScheduleS } = deps
  const now = deps.now ?? Date.now
  const schedule = retryScheduleS.length ? retryScheduleS : [0]

  /**
   * Claim up to `limit` due deliveries for this worker, oldest due first, fairly: none of an endpoint
   * in `fair.busyEndpoints` (this worker is already sending to it), at most one per endpoint, and at
   * most `fair.perAccount` per account less what that account already has in flight here
   * (`fair.busyAccounts`). One account's hanging endpoints then hold only its own share of the
   * senders (docs/decisions/programs.md, Webhooks). The first SCAN_ROWS due rows of accounts and
   * endpoints with room are looked at; what is left waits for the next claim.
   */
  async function claim (limit: number, fair: Fairness = NO_FAIRNESS): Promise<Claimed[]> {
    const accounts = [...fair.busyAccounts]
    return await database.query<Claimed>(`
      with busy as (
        select b.user_id::uuid as user_id, b.n::int as n
        from unnest(string_to_array($4, ','), string_to_array($5, ',')) as b(user_id, n)),
      candidates as (
        select d.id, d.endpoint_id, e.user_id, d.next_attempt_at
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.status = 'pending' and d.next_attempt_at <= now()
          and d.endpoint_id <> all(string_to_array($3, ',')::uuid[])
          and e.user_id not in (select user_id from busy where n >= $6::int)
        order by d.next_attempt_at
        limit ${SCAN_ROWS}
        for update of d skip locked),
      first_of_endpoint as (
        select distinct on (endpoint_id) id, user_id, next_attempt_at from candidates
        order by endpoint_id, next_attempt_at, id),
      ranked as (
        select f.id, f.next_attempt_at, row_number() over (partition by f.user_id order by f.next_attempt_at, f.id) as nth,
          $6::int - coalesce(b.n, 0) as room
        from first_of_endpoint f left join busy b on b.user_id = f.user_id)
      update webhook_deliveries d set next_attempt_at = now() + $2::int * interval '1 millisecond'
      from webhook_endpoints e
      where d.id in (select id from ranked where nth <= room order by next_attempt_at limit $1)
        and e.id = d.endpoint_id
      returning d.id, d.body, d.attempts, d.endpoint_id, e.user_id, e.url, e.secret, e.previous_secret, e.previous_until, e.disabled_at`,
    [limit, deps.leaseMs, [...fair.busyEndpoints].join(','), accounts.map(([id]) => id).join(','), accounts.map(([, n]) => n).join(','), fair.perAccount])
  }

  /** record an attempt that did not deliver: retried at the next step, or failed when none is left */
  async function notDelivered (d: Claimed, status: number | null, error: string | null): Promise<AttemptOutcome> {
    const rows = await database.query<{ status: string }>(`
      update webhook_deliveries set
        attempts = attempts + 1, last_status_code = $3, last_error = $4,
        status = case when $5::int is null then 'failed' else 'pending' end,
        next_attempt_at = case when $5::int is null then null else created_at + $5::int * interval '1 second' end
      where id = $1 and status = 'pending' and attempts = $2
      returning status`, [d.id, d.attempts, status, error?.slice(0, ERROR_CHARS) ?? null, schedule[d.attempts + 1] ?? null])
    if (rows.length === 0) return 'lost'
    return rows[0].status === 'failed' ? 'failed' : 'retry'
  }

  async function delivered (d: Claimed, status: number): Promise<AttemptOutcome> {
    const rows = await database.query(`
      update webhook_deliveries set attempts = attempts + 1, last_status_code = $3, last_error = null,
        status = 'delivered', delivered_at = now(), next_attempt_at = null
      where id = $1 and status = 'pending' and attempts = $2
      returning id`, [d.id, d.attempts, status])
    return rows.length ? 'delivered' : 'lost'
  }

  /** 410 Gone: the endpoint is disabled, this and its other pending deliveries failed */
  async function gone (d: Claimed): Promise<AttemptOutcome> {
    await database.query(`
      with endpoint as (
        update webhook_endpoints set disabled_at = coalesce(disabled_at, now())
        where id = (select endpoint_id from webhook_deliveries where id = $1) returning id),
      attempted as (
        update webhook_deliveries set attempts = attempts + 1, last_status_code = 410, last_error = 'endpoint gone (410): disabled',
          status = 'failed', next_attempt_at = null
        where id = $1 and status = 'pending' and attempts = $2 returning id)
      update webhook_deliveries set status = 'failed', next_attempt_at = null, last_error = 'endpoint disabled after a 410'
      where endpoint_id in (select id from endpoint) and status = 'pending' and id <> $1`, [d.id, d.attempts])
    return 'disabled'
  }

  /** one attempt of a claimed delivery */
  async function attempt (d: Claimed): Promise<AttemptOutcome> {
    if (d.disabled_at !== null) {
      const rows = await database.query(`update webhook_deliveries set status = 'failed', next_attempt_at = null, last_error = 'endpoint disabled'
        where id = $1 and status = 'pending' and attempts = $2 returning id`, [d.id, d.attempts])
      return rows.length ? 'failed' : 'lost'
    }
    const timestamp = Math.floor(now() / 1000)
    const secrets = [d.secret]
    if (d.previous_secret && d.previous_until && new Date(d.previous_until).getTime() > now()) secrets.push(d.previous_secret)
    let status: number
    try {
      const answer = await post(d.url, {
        headers: {
          'content-type': 'application/json',
          'webhook-id': d.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, d.id, timestamp, d.body)
        },
        body: d.body,
        maxAnswerBytes: ANSWER_BYTES
      })
      status = answer.status
    } catch (err) {
      if (!(err instanceof OutboundRefused)) throw err
      return await notDelivered(d, null, err.message)
    }
    if (status >= 200 && status < 300) return await delivered(d, status)
    if (status === 410) return await gone(d)
    return await notDelivered(d, status, status >= 300 && status < 400 ? 'redirect not followed' : `status ${status}`)
  }

  return {
    claim,
    attempt,
    /** claim what is due (up to `limit`) and attempt each, all at once; resolves when every attempt has ended */
    async runDue (limit: number): Promise<AttemptOutcome[]> {
      const claimed = await claim(limit)
      return await Promise.all(claimed.map(async (d) => {
        try {
          return await attempt(d)
        } catch (err) {
          // the outcome could not be written (the database went away): the lease runs out and the attempt is made again
          deps.log?.warn({ err: { message: (err as Error).message }, deliveryId: d.id }, 'webhook delivery attempt not recorded')
          return 'lost' as const
        }
      }))
    }
  }
}

export type Deliverer = ReturnType<typeof createDeliverer>
