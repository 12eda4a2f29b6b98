// Every named error of the service, in one table (the model is fastify's lib/errors.js): a code
// `${ERR_PREFIX}_...`, a message and, for those that answer a request, an HTTP status and a stable
// machine `reason`. A client sees the GeneralError shape {code: <status>, message, reason}
// (schemas/common.ts): the error handler (src/plugins/errors.ts) shows the message and reason of an
// answer of this table and turns anything else into 500/503 without internal text. The message is
// prose a person reads (the interface specification fixes some, `access denied` among them); the
// reason is what a program branches on, and it never changes (docs/integration.md, Errors). The
// last part is our wording, and reasons, for errors Fastify and Node raise.
import createError from '@fastify/error'

export const ERR_PREFIX = 'PIR'

/** an error of this table: the message of an answer is written for the client */
export const isOwnError = (error: { code?: string }): boolean => error.code?.startsWith(`${ERR_PREFIX}_`) === true

// ---------------------------------------------------------------- answers

/** the status and reason of each answer of this table, by its code (an error's `reason` in the body) */
export const ANSWERS: Record<string, { status: number, reason: string }> = {}
/** an error of this table that answers a request: its status and its reason */
function answer<Arg extends unknown[] = []> (name: string, message: string, status: number, reason: string) {
  const code = `${ERR_PREFIX}_${name}`
  ANSWERS[code] = { status, reason }
  return createError<Arg>(code, message, status)
}

export const Unauthorized = answer('UNAUTHORIZED', 'access denied', 401, 'unauthenticated')
export const Forbidden = answer('FORBIDDEN', 'access denied', 403, 'forbidden')
// 403s the interface specification answers `access denied` alike, told apart by their reason: an API
// key whose scopes do not name the route's, a report of another user, a report generated already
export const ScopeMissing = answer('SCOPE_MISSING', 'access denied', 403, 'scope_missing')
export const NotOwner = answer('NOT_OWNER', 'access denied', 403, 'not_owner')
export const AlreadyGenerated = answer('ALREADY_GENERATED', 'access denied', 403, 'already_generated')
// DELETE /auth/account: the caller is signed in, but the proof it sent (password, Google credential) is refused
export const ProofRefused = answer<[string]>('PROOF_REFUSED', '%s', 403, 'proof_refused')
export const HttpsRequired = answer('HTTPS_REQUIRED', 'https required', 403, 'https_required')
export const CrossSiteRequest = answer('CROSS_SITE', 'access denied', 403, 'cross_site_request')
export const NotFound = answer<[string?]>('NOT_FOUND', '%s', 404, 'not_found')
export const BadRequest = answer<[string]>('BAD_REQUEST', '%s', 400, 'bad_request')
export const PaymentRequired = answer('PAYMENT_REQUIRED', 'payment required', 402, 'no_report_credit')
// POST /report/{id}/watch past the watches the user may hold (WATCH_MAX, WATCH_MAX_SUBSCRIBED)
export const WatchLimitReached = answer('WATCH_LIMIT', 'payment required', 402, 'watch_limit_reached')
export const Conflict = answer<[string]>('CONFLICT', '%s', 409, 'conflict')
// a watch asked of a report that is not ready yet
export const ReportNotReady = answer('REPORT_NOT_READY', 'report not ready', 409, 'report_not_ready')
// a session at level 1 of an account with a second factor: only POST /auth/mfa/verify, POST /auth/signout
// and GET /auth/info answer it until the second factor is proved
export const SecondFactorRequired = answer('SECOND_FACTOR_REQUIRED', 'second factor required', 403, 'second_factor_required')
// removing the account's last second factor with the password alone (docs/decisions/accounts.md,
// Second factors)
export const FactorProofRequired = answer('FACTOR_PROOF_REQUIRED',
  'removing the last second factor needs a proof by it: a code of the authenticator app or a recovery code, or an assertion of the passkey', 403, 'factor_proof_required')
// a sensitive call (creating an API key or a webhook) from a session whose last proof of its owner is
// older than STEP_UP_MAX_AGE_S: POST /auth/reauthenticate renews it
export const ReauthenticationRequired = answer('REAUTHENTICATION_REQUIRED', 're-authentication required', 403, 'reauthentication_required')
// Idempotency-Key: the key was used with another method, path or body; or its first request still runs
export const IdempotencyKeyReused = answer('IDEMPOTENCY_KEY_REUSED', 'idempotency key reused with another request', 422, 'idempotency_key_reused')
export const IdempotencyKeyInUse = answer('IDEMPOTENCY_KEY_IN_USE', 'a request with this idempotency key is still running', 409, 'idempotency_key_in_use')
export const UnsupportedEncoding = answer<[string]>('UNSUPPORTED_ENCODING', '%s', 415, 'unsupported_encoding')
export const TooManyRequests = answer('TOO_MANY_REQUESTS', 'too many requests', 429, 'rate_limited')
export const ServiceUnavailable = answer<[string?]>('UNAVAILABLE', '%s', 503, 'unavailable')
// GET /images: the stored image URL could not be fetched under the outbound rules (the reason is logged, not answered)
export const ImageUnavailable = answer('IMAGE_UNAVAILABLE', 'image unavailable', 502, 'image_unavailable')

export const notFound = (what = 'not found') => new NotFound(what)
export const serviceUnavailable = (what = 'service unavailable') => new ServiceUnavailable(what)

// ---------------------------------------------------------------- inside the service

/** the environment or a file it names is invalid: the process does not start (message for the operator) */
export const ConfigError = createError<[string]>(`${ERR_PREFIX}_CONFIG`, '%s')
/** another process owns the embedded database (message for the operator: who, and what to do) */
export const EmbeddedDatabaseInUse = createError<[string]>(`${ERR_PREFIX}_DATABASE_IN_USE`, '%s')
/** the data changed under an import (a concurrent writer): nothing was written */
export const IngestConflictError = answer<[string, { cause: unknown }?]>('INGEST_CONFLICT', '%s', 409, 'ingest_conflict')
/** a promo code that cannot be redeemed: rolls back the transaction that tried */
export const PromocodeRefused = createError(`${ERR_PREFIX}_PROMOCODE_REFUSED`, 'promo code refused')
/** a sign-in's session refused: the credential it proved changed before the session was written (src/services/sessions/fastify-store.ts) */
export const StaleCredential = createError(`${ERR_PREFIX}_STALE_CREDENTIAL`, 'the credential this sign-in proved has changed')
/** an outbound request its rules refused or that failed (src/services/outbound/): the message says why, for the log */
export const OutboundRefused = createError<[string]>(`${ERR_PREFIX}_OUTBOUND`, '%s')

// ---------------------------------------------------------------- raised by Fastify and Node

// Fastify's own client errors, answered with our wording and a reason.
export const fastifyClientErrors: Record<string, { code: number, message: string, reason: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 400, message: 'body is not valid JSON', reason: 'invalid_json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 400, message: 'body is empty', reason: 'empty_body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 413, message: 'body too large', reason: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 415, message: 'unsupported media type', reason: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 400, message: 'invalid content length', reason: 'bad_request' },
  FST_ERR_CTP_INVALID_TYPE: { code: 400, message: 'invalid content type', reason: 'bad_request' },
  FST_ERR_BAD_URL: { code: 400, message: 'bad url', reason: 'bad_url' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 414, message: 'uri too long', reason: 'uri_too_long' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 400, message: 'bad request', reason: 'bad_request' },
  FST_ERR_INVALID_URL: { code: 400, message: 'bad url', reason: 'bad_url' }
}

/** the reason of a request that does not match its route's schema (400, the message names the field) */
export const VALIDATION_REASON = 'validation_failed'

/** the reason of an error answer that is none of the above, by its status */
export const statusReasons: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'header_fields_too_large',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'unavailable'
}

export const statusMessages: Record<number, string> = {
  400: 'bad request',
  401: 'access denied',
  403: 'access denied',
  404: 'not found',
  405: 'method not allowed',
  406: 'not acceptable',
  408: 'request timeout',
  409: 'conflict',
  413: 'body too large',
  414: 'uri too long',
  415: 'unsupported media type',
  422: 'unprocessable content',
  429: 'too many requests',
  431: 'request header fields too large',
  500: 'internal error',
  502: 'bad gateway',
  503: 'service unavailable'
}

/** every reason an error answer of each status may carry, for the OpenAPI document */
export function reasonsByStatus (): Record<number, string[]> {
  const out: Record<number, Set<string>> = {}
  const add = (status: number, reason: string) => { (out[status] ??= new Set()).add(reason) }
  for (const { status, reason } of Object.values(ANSWERS)) add(status, reason)
  for (const { code, reason } of Object.values(fastifyClientErrors)) add(code, reason)
  for (const [status, reason] of Object.entries(statusReasons)) add(Number(status), reason)
  add(400, VALIDATION_REASON)
  return Object.fromEntries(Object.entries(out).map(([status, set]) => [status, [...set].sort()]))
}

/** errors Node raises on a request it cannot parse (answered on the socket): [status, reason phrase, message]; the body's reason is statusReasons' */
export const socketClientErrors: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request header fields too large']
}
