// API keys for programs (docs/decisions/programs.md, API keys): what a person sends to issue one,
// the key as issued (shown once) and as listed (never the key).
import { Type, type Static } from '@sinclair/typebox'
import { UuidSchema } from './common.ts'

/** what an API key may be allowed to do */
export const API_KEY_SCOPES = ['reports:read', 'reports:write', 'profiles:read', 'webhooks', 'alerts', 'admin:read'] as const

export const ApiKeyScopeSchema = Type.Union(API_KEY_SCOPES.map((s) => Type.Literal(s)), {
  title: 'ApiKeyScope',
  description: 'what the key may call: reports:read (GET /report..., export, GET /sse/{id}), reports:write ' +
    '(POST /report, generate, DELETE /report/{id}), profiles:read (GET /profiles), webhooks, alerts, ' +
    'admin:read (the GET routes of /admin; only a staff member may issue it, and a key never writes there)'
})

export type ApiKeyScope = Static<typeof ApiKeyScopeSchema>

export const CreateApiKeyBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'what the key is for, as its owner will recognise it' }),
  scopes: Type.Array(ApiKeyScopeSchema, { minItems: 1, maxItems: API_KEY_SCOPES.length, uniqueItems: true }),
  expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'no expiry when absent' }))
}, { title: 'CreateApiKeyBody', additionalProperties: false, examples: [{ name: 'nightly export', scopes: ['reports:read'], expiresInDays: 90 }] })
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>

const id = Type.String({ format: 'uuid' })
const name = Type.String()
const scopes = Type.Array(ApiKeyScopeSchema)
const prefix = Type.String({ description: 'the 12 characters after `pir_`: names the key in listings and logs' })
const createdAt = Type.String({ format: 'date-time' })
const expiresAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null: the key does not expire' })

export const IssuedApiKeySchema = Type.Object({
  id, name, scopes, prefix,
  key: Type.String({ description: '`pir_<prefix>_<secret>`, sent as `Authorization: Bearer <key>`; shown this once, only its hash is kept' }),
  createdAt, expiresAt
}, {
  title: 'IssuedApiKey',
  examples: [{
    id: '1f0e2d3c-4b5a-4968-8776-a5b4c3d2e1f0', name: 'nightly export', scopes: ['reports:read'], prefix: '3f9a0c12be47',
    key: 'pir_3f9a0c12be47_q8Zk1M0yVbGQm2Jx4rT7sW9uN3eP5aH6cL8dF0gK2iE', createdAt: '2030-01-01T10:00:00.000Z', expiresAt: '2030-04-01T10:00:00.000Z'
  }]
})

export const ApiKeySchema = Type.Object({
  id, name, scopes, prefix, createdAt,
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'the last request with the key, to within a minute; null: never used' }),
  expiresAt
}, { title: 'ApiKey' })

export const ApiKeyListSchema = Type.Object({
  items: Type.Array(ApiKeySchema, { description: 'the keys not revoked (expired ones too), newest first' })
}, { title: 'ApiKeyList' })

export const ApiKeyIdParamsSchema = Type.Object({ id: UuidSchema() })
