// The one table of named errors. Every client-visible failure is one of these, in the GeneralError
// shape {code, message} (DESIGN 3.1); the error handler turns anything else into 500/503 without
// internal text.
import createError from '@fastify/error'

export const Unauthorized = createError('PIR_UNAUTHORIZED', 'access denied', 401)
export const Forbidden = createError('PIR_FORBIDDEN', 'access denied', 403)
// DELETE /auth/account: the caller is signed in, but the proof it sent (password, Google credential) is refused
export const ProofRefused = createError<[string]>('PIR_PROOF_REFUSED', '%s', 403)
export const HttpsRequired = createError('PIR_HTTPS_REQUIRED', 'https required', 403)
export const CrossSiteRequest = createError('PIR_CROSS_SITE', 'access denied', 403)
export const NotFound = createError<[string?]>('PIR_NOT_FOUND', '%s', 404)
export const BadRequest = createError<[string]>('PIR_BAD_REQUEST', '%s', 400)
export const PaymentRequired = createError('PIR_PAYMENT_REQUIRED', 'payment required', 402)
export const Conflict = createError<[string]>('PIR_CONFLICT', '%s', 409)
export const UnsupportedEncoding = createError<[string]>('PIR_UNSUPPORTED_ENCODING', '%s', 415)
export const TooManyRequests = createError('PIR_TOO_MANY_REQUESTS', 'too many requests', 429)
export const ServiceUnavailable = createError<[string?]>('PIR_UNAVAILABLE', '%s', 503)

export const notFound = (what = 'not found') => new NotFound(what)
export const serviceUnavailable = (what = 'service unavailable') => new ServiceUnavailable(what)

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
  429: 'too many requests',
  431: 'request header fields too large',
  500: 'internal error',
  503: 'service unavailable'
}
