// Every named error of the service, in one table (the model is fastify's lib/errors.js): a code
// `${ERR_PREFIX}_...`, a message and, for those that answer a request, an HTTP status. A client sees
// the GeneralError shape {code: <status>, message} (schemas/common.ts): the error handler
// (src/plugins/errors.ts) shows the message of an answer of this table and turns anything else into
// 500/503 without internal text. The last part is our wording for errors Fastify and Node raise.
import createError from '@fastify/error'

export const ERR_PREFIX = 'PIR'

/** an error of this table: the message of an answer is written for the client */
export const isOwnError = (error: { code?: string }): boolean => error.code?.startsWith(`${ERR_PREFIX}_`) === true

// ---------------------------------------------------------------- answers

export const Unauthorized = createError(`${ERR_PREFIX}_UNAUTHORIZED`, 'access denied', 401)
export const Forbidden = createError(`${ERR_PREFIX}_FORBIDDEN`, 'access denied', 403)
// DELETE /auth/account: the caller is signed in, but the proof it sent (password, Google credential) is refused
export const ProofRefused = createError<[string]>(`${ERR_PREFIX}_PROOF_REFUSED`, '%s', 403)
export const HttpsRequired = createError(`${ERR_PREFIX}_HTTPS_REQUIRED`, 'https required', 403)
export const CrossSiteRequest = createError(`${ERR_PREFIX}_CROSS_SITE`, 'access denied', 403)
export const NotFound = createError<[string?]>(`${ERR_PREFIX}_NOT_FOUND`, '%s', 404)
export const BadRequest = createError<[string]>(`${ERR_PREFIX}_BAD_REQUEST`, '%s', 400)
export const PaymentRequired = createError(`${ERR_PREFIX}_PAYMENT_REQUIRED`, 'payment required', 402)
export const Conflict = createError<[string]>(`${ERR_PREFIX}_CONFLICT`, '%s', 409)
// a session at level 1 of an account with a second factor: only POST /auth/mfa/verify, POST /auth/signout
// and GET /auth/info answer it until the second factor is proved
export const SecondFactorRequired = createError(`${ERR_PREFIX}_SECOND_FACTOR_REQUIRED`, 'second factor required', 403)
// removing the account's last second factor with the password alone (docs/decisions.md, Second factors)
export const FactorProofRequired = createError(`${ERR_PREFIX}_FACTOR_PROOF_REQUIRED`,
  'removing the last second factor needs a proof by it: a code of the authenticator app or a recovery code, or an assertion of the passkey', 403)
// a sensitive call (creating an API key or a webhook) from a session whose last proof of its owner is
// older than STEP_UP_MAX_AGE_S: POST /auth/reauthenticate renews it
export const ReauthenticationRequired = createError(`${ERR_PREFIX}_REAUTHENTICATION_REQUIRED`, 're-authentication required', 403)
// Idempotency-Key: the key was used with another method, path or body; or its first request still runs
export const IdempotencyKeyReused = createError(`${ERR_PREFIX}_IDEMPOTENCY_KEY_REUSED`, 'idempotency key reused with another request', 422)
export const IdempotencyKeyInUse = createError(`${ERR_PREFIX}_IDEMPOTENCY_KEY_IN_USE`, 'a request with this idempotency key is still running', 409)
export const UnsupportedEncoding = createError<[string]>(`${ERR_PREFIX}_UNSUPPORTED_ENCODING`, '%s', 415)
export const TooManyRequests = createError(`${ERR_PREFIX}_TOO_MANY_REQUESTS`, 'too many requests', 429)
export const ServiceUnavailable = createError<[string?]>(`${ERR_PREFIX}_UNAVAILABLE`, '%s', 503)
// GET /images: the stored image URL could not be fetched under the outbound rules (the reason is logged, not answered)
export const ImageUnavailable = createError(`${ERR_PREFIX}_IMAGE_UNAVAILABLE`, 'image unavailable', 502)

export const notFound = (what = 'not found') => new NotFound(what)
export const serviceUnavailable = (what = 'service unavailable') => new ServiceUnavailable(what)

// ---------------------------------------------------------------- inside the service

/** the environment or a file it names is invalid: the process does not start (message for the operator) */
export const ConfigError = createError<[string]>(`${ERR_PREFIX}_CONFIG`, '%s')
/** another process owns the embedded database (message for the operator: who, and what to do) */
export const EmbeddedDatabaseInUse = createError<[string]>(`${ERR_PREFIX}_DATABASE_IN_USE`, '%s')
/** the data changed under an import (a concurrent writer): nothing was written */
export const IngestConflictError = createError<[string, { cause: unknown }?]>(`${ERR_PREFIX}_INGEST_CONFLICT`, '%s', 409)
/** a promo code that cannot be redeemed: rolls back the transaction that tried */
export const PromocodeRefused = createError(`${ERR_PREFIX}_PROMOCODE_REFUSED`, 'promo code refused')
/** a sign-in's session refused: the credential it proved changed before the session was written (src/services/sessions/store.ts) */
export const StaleCredential = createError(`${ERR_PREFIX}_STALE_CREDENTIAL`, 'the credential this sign-in proved has changed')
/** an outbound request its rules refused or that failed (src/services/outbound/): the message says why, for the log */
export const OutboundRefused = createError<[string]>(`${ERR_PREFIX}_OUTBOUND`, '%s')

// ---------------------------------------------------------------- raised by Fastify and Node

// Fastify's own client errors, answered with our wording.
export const fastifyClientErrors: Record<string, { code: number, message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 400, message: 'body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 400, message: 'body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 413, message: 'body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 415, message: 'unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 400, message: 'invalid content length' },
  FST_ERR_CTP_INVALID_TYPE: { code: 400, message: 'invalid content type' },
  FST_ERR_BAD_URL: { code: 400, message: 'bad url' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 414, message: 'uri too long' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 400, message: 'bad request' },
  FST_ERR_INVALID_URL: { code: 400, message: 'bad url' }
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

/** errors Node raises on a request it cannot parse (answered on the socket): [status, reason phrase, message] */
export const socketClientErrors: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request header fields too large']
}
