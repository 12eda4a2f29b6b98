// Shared by the fuzz tests: hostile values, the documented error shapes and table counts.
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/** fixed, so that a failure reproduces; fast-check prints the seed and path of a counterexample */
export const FUZZ_SEED = 20261123

export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype']
const FIELD_KEYS = ['email', 'password', 'token', 'remember', 'promocode', 'acquisition_code', 'clientId', 'credential',
  'select_by', 'profiles', 'source', 'username', 'successUrl', 'cancelUrl', 'returnUrl', 'offset', 'limit', 'sortByRedFlags', 'skipInvalid']

const hugeString = fc.constantFrom(1024, 70_000, 300_000).chain((n) => fc.constantFrom('a', 'é', '😀', '\u0000').map((c) => c.repeat(n)))

/** strings a client can send: unicode, NUL bytes, control characters, numbers-as-text, huge */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40, unit: 'grapheme' }), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40, unit: 'binary' }), weight: 3 },
  { arbitrary: fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\uFEFF', '\uD800', '%00', '%', '../../etc/passwd', '-1', '1e309', 'NaN',
    'null', 'true', '0x10', '101', '9007199254740993', '<script>', "' or 1=1 --", 'ig', 'fb', 'x@example.com', ...POLLUTION_KEYS), weight: 4 },
  { arbitrary: hugeString, weight: 1 }
)

const key = fc.oneof(fc.constantFrom(...POLLUTION_KEYS, ...FIELD_KEYS), fc.string({ maxLength: 12 }))

/** JSON-like values of every type, deeply nested now and then, objects keyed by pollution keys */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 })
  )
})).value

/** a document nested `depth` levels, as objects or arrays */
export const deepNesting = fc.tuple(fc.integer({ min: 50, max: 5000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth))

/** a JSON text in which `__proto__` is an own key (JSON.stringify of an object literal would drop it) */
export const pollutionBody = fc.tuple(fc.constantFrom(...POLLUTION_KEYS), hostileJson, fc.dictionary(fc.constantFrom(...FIELD_KEYS), hostileJson, { maxKeys: 3 }))
  .map(([k, v, rest]) => {
    const inner = JSON.stringify({ polluted: true, isAdmin: true, reportCredits: 1000 })
    const extra = Object.entries(rest).map(([a, b]) => `,${JSON.stringify(a)}:${JSON.stringify(b ?? null)}`).join('')
    return `{${JSON.stringify(k)}:${inner}${extra},"nested":{${JSON.stringify(k)}:{"prototype":${JSON.stringify(v ?? null)}}}}`
  })

export const jsonText = fc.oneof(
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  pollutionBody,
  deepNesting,
  fc.constantFrom('{', '{"email":', 'nul', '[1,]', '{"a":1}{"b":2}', '\uFEFF{}', '{"email":"\u0000"}', '')
)

const ERROR_FIELDS = new Set(['email', 'password', 'promocode'])

/**
 * What may come back. An error status (4xx, 503) carries GeneralError {code, message}
 * with code = the status; form endpoints also answer HTTP 200 {status:"error", fieldError}.
 * Returns the reason the response breaks the contract, or null.
 */
export function contractViolation (res: LightMyRequestResponse, method: string, documented503: readonly string[]): string | null {
  const status = res.statusCode
  if (status >= 500 && !(status === 503)) return `status ${status}`
  if (method === 'HEAD' || status === 204 || status === 304) return null
  if (status >= 400) {
    if (!/^application\/json/.test(String(res.headers['content-type'] ?? ''))) return `content-type ${String(res.headers['content-type'])}`
    let body: unknown
    try { body = JSON.parse(res.body) } catch { return 'body is not JSON' }
    const b = body as Record<string, unknown>
    const keys = Object.keys(b ?? {}).sort().join(',')
    if (keys === 'code,message,reason') {
      if (b.code !== status) return `code ${String(b.code)} differs from status ${status}`
      if (typeof b.reason !== 'string' || !/^[a-z][a-z_]*$/.test(b.reason)) return `reason ${String(b.reason)} is not a snake_case name`
      if (typeof b.message !== 'string' || !b.message) return 'message is not a non-empty string'
      if (status === 503 && !documented503.includes(b.message)) return `undocumented 503 message ${b.message}`
      if (/\bat .+:\d+:\d+\)?/.test(b.message)) return 'message carries a stack'
      return null
    }
    return `error body of shape {${keys}}`
  }
  if (status === 200 && /^application\/json/.test(String(res.headers['content-type'] ?? ''))) {
    const b = res.json() as Record<string, unknown>
    if (b && b.status === 'error') {
      const fe = b.fieldError as Record<string, unknown> | undefined
      if (!fe || Object.keys(b).sort().join(',') !== 'fieldError,status') return `FormResult error of shape {${Object.keys(b).join(',')}}`
      if (!ERROR_FIELDS.has(String(fe.field)) || typeof fe.message !== 'string' || Object.keys(fe).sort().join(',') !== 'field,message') {
        return `fieldError ${JSON.stringify(fe)}`
      }
    }
  }
  return null
}

export const PROFILE_TABLES = ['categories', 'red_flags', 'interests', 'accounts', 'account_interests', 'profiles', 'follows', 'friendships']

export async function tableCounts (app: FastifyInstance, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of tables) {
    const [row] = await app.database.query<{ n: number }>(`select count(*)::int as n from ${table}`)
    out[table] = row.n
  }
  return out
}

/** Object.prototype as it should be: nothing added by a request */
export function prototypePolluted (): string[] {
  const probe = {} as Record<string, unknown>
  const own = Object.getOwnPropertyNames(Object.prototype).filter((k) => !BASELINE_PROTO.includes(k))
  for (const k of ['polluted', 'isAdmin', 'reportCredits', 'prototype', 'a', 'nested']) if (k in probe) own.push(k)
  return own
}
const BASELINE_PROTO = Object.getOwnPropertyNames(Object.prototype)
