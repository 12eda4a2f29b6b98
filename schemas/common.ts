// Shapes shared by every resource.
import { Type, type Static, type TSchema } from '@sinclair/typebox'

export const SOURCES = ['ig', 'fb', 'tt', 'tw', 'li'] as const
export const SourceSchema = Type.Union(SOURCES.map((s) => Type.Literal(s)), { title: 'Source', description: 'source network' })
export type Source = Static<typeof SourceSchema>

// A UUID in the one form the service prints its ids (users, reports, sessions, keys): lowercase and
// hyphenated. `format: 'uuid'` alone lets `urn:uuid:` through, which the database refuses (a 500),
// and uppercase or braces, which the database reads but the in-memory views, keyed by the printed
// form, would not find (docs/decisions/programs.md, HTTP hardening). A Stripe metadata field has no
// schema: the services check such ids with isUuid.
const UUID_SOURCE = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
const UUID_PATTERN = new RegExp(UUID_SOURCE)
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value)

/** a path, query or body parameter that names something by its id: the printed form only (400 otherwise) */
export const UuidSchema = (options: { description?: string } = {}) => Type.String({ format: 'uuid', pattern: UUID_SOURCE, ...options })

export const GeneralErrorSchema = Type.Object({
  code: Type.Integer({ description: 'HTTP status' }),
  message: Type.String({ description: 'what went wrong, for a person: its wording may change' }),
  reason: Type.Optional(Type.String({
    pattern: '^[a-z][a-z_]*$',
    description: 'what went wrong, for a program: a stable snake_case name (`scope_missing`, `not_owner`, ...); each answer of the document lists those its status may carry'
  }))
}, { title: 'GeneralError', $id: 'GeneralError' })
export type GeneralError = Static<typeof GeneralErrorSchema>

export const FieldErrorSchema = Type.Object({
  field: Type.Union([Type.Literal('email'), Type.Literal('password'), Type.Literal('promocode'), Type.Literal('code'), Type.Literal('passkey')]),
  message: Type.String()
}, { title: 'FieldError' })
export type FieldError = Static<typeof FieldErrorSchema>

export const FormResultSchema = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  token: Type.Optional(Type.String({ description: 'JWT, only when the request set `token` to true' })),
  isNewUser: Type.Optional(Type.Boolean()),
  mfaRequired: Type.Optional(Type.Boolean({
    description: 'the account has a second factor: the session is at level 1 until POST /auth/mfa/verify (docs/decisions/accounts.md, Second factors)'
  })),
  fieldError: Type.Optional(FieldErrorSchema)
}, { title: 'FormResult', examples: [{ status: 'error', fieldError: { field: 'password', message: 'Wrong e-mail or password' } }] })
export type FormResult = Static<typeof FormResultSchema>

export const SuccessSchema = Type.Object({ status: Type.Literal('success') }, { title: 'Success' })

export const PageQuerySchema = Type.Object({
  offset: Type.Integer({ minimum: 0, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 })
}, { additionalProperties: false })

export const IdParamsSchema = Type.Object({ id: UuidSchema() })

// Errors Fastify answers before any handler runs, so every route of the kind has them, whether or not
// it reads what they are about (the suite checks every response against the document: test/response-check.ts).
/** a body sent to a POST, PUT, PATCH or DELETE route is parsed: not JSON or empty 400, over the body limit 413, an unsupported media type 415 */
export const BODY_ERRORS = [400, 413, 415] as const
/** a path parameter that is not valid percent-encoding 400, one longer than Fastify's maxParamLength (100) 414 */
export const PARAM_ERRORS = [400, 414] as const

// Every status a route can answer with an error, in the GeneralError shape.
export function errorResponses (...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {}
  for (const c of codes) out[c] = GeneralErrorSchema
  return out
}
