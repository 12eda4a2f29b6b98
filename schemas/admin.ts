// The admin API's reads, roles and promo codes (docs/operations.md, Support): accounts as staff see
// them, the audit log, the overview. The per-account actions' bodies are in ./admin-actions.ts.
import { Type, type Static } from '@sinclair/typebox'
import { PageQuerySchema, UuidSchema } from './common.ts'

const dateTime = Type.String({ format: 'date-time' })
const nullable = <T extends ReturnType<typeof Type.String>>(t: T, description?: string) => Type.Union([t, Type.Null()], description ? { description } : {})

export const ROLE_VALUES = ['user', 'support', 'admin'] as const
export const RoleSchema = Type.Union(ROLE_VALUES.map((r) => Type.Literal(r)), {
  title: 'Role',
  description: 'user (no staff access), support (every read; disable, enable, end sessions, send a link) or admin (everything)'
})

export const ReasonSchema = Type.String({
  minLength: 1, maxLength: 500, pattern: '\\S',
  description: 'why, as the audit log and the holder\'s notice will say it'
})

export const AdminUserParamsSchema = Type.Object({ id: UuidSchema({ description: 'the account\'s id (404 when it is not one, malformed or unknown)' }) })

export const AdminUserQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 254, description: 'a part of the address, any case (`%` and `_` match themselves)' })),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'exactly this address, any case (the address a ticket names)' })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('unconfirmed')], {
    description: 'active: confirmed and not disabled; disabled; unconfirmed: not confirmed and not disabled'
  })),
  ...PageQuerySchema.properties
}, { additionalProperties: false })
export type AdminUserQuery = Static<typeof AdminUserQuerySchema>

export const AdminUserSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  confirmed: Type.Boolean(),
  role: RoleSchema,
  disabled: Type.Boolean(),
  createdAt: dateTime,
  lastSignInAt: nullable(dateTime, 'the last sign-in by any method; null: never'),
  credits: Type.Integer({ description: 'report credits' }),
  subscription: Type.Union([Type.Object({ status: Type.String({ description: 'Stripe\'s status of the subscription GET /auth/info shows' }) }), Type.Null()]),
  mfa: Type.Object({ totp: Type.Boolean(), passkeys: Type.Integer({ minimum: 0 }) })
}, { title: 'AdminUser' })

export const AdminUserListSchema = Type.Object({
  items: Type.Array(AdminUserSchema, { description: 'newest first' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'AdminUserList' })

export const AdminUserDetailSchema = Type.Object({
  ...AdminUserSchema.properties,
  sessions: Type.Array(Type.Object({
    id: Type.String({ format: 'uuid' }),
    device: nullable(Type.String(), '"Chrome on Linux"; null when the User-Agent names no known browser or system'),
    ip: nullable(Type.String(), 'the /24 (IPv4) or /48 (IPv6) the session was signed in from'),
    createdAt: dateTime,
    lastUsedAt: nullable(dateTime)
  }), { description: 'the live sessions, newest first' }),
  apiKeys: Type.Array(Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    prefix: Type.String(),
    lastUsedAt: nullable(dateTime)
  }), { description: 'the live keys (neither revoked nor expired), newest first' }),
  webhooks: Type.Array(Type.Object({
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(Type.String()),
    disabled: Type.Boolean()
  }), { description: 'every endpoint, oldest first' }),
  reports: Type.Integer({ minimum: 0, description: 'how many reports the account has' }),
  watches: Type.Integer({ minimum: 0 }),
  acquisitionCode: nullable(Type.String(), 'the acquisition code given at sign-up')
}, { title: 'AdminUserDetail' })

export const RoleBodySchema = Type.Object({ role: RoleSchema, reason: ReasonSchema }, {
  title: 'RoleBody', additionalProperties: false, examples: [{ role: 'support', reason: 'joined the support desk' }]
})

export const AuditQuerySchema = Type.Object({
  userId: Type.Optional(UuidSchema({ description: 'the account acted on' })),
  actorId: Type.Optional(UuidSchema({ description: 'the staff member who acted' })),
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z.]*(\\.\\*)?$', description: 'a kind (`signin.failure`), or every kind under a prefix (`admin.*`)' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'from this instant (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'until this instant (exclusive)' })),
  ...PageQuerySchema.properties
}, { additionalProperties: false })
export type AuditQuery = Static<typeof AuditQuerySchema>

export const AuditEventSchema = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: '`signin.success`, `admin.disable`, ... (docs/security.md, Log inventory)' }),
  userId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the account; null for a failure on an unknown address or a promo code' }),
  actorId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the staff member; null when the holder, the service or the operator acted' }),
  ip: nullable(Type.String()),
  device: nullable(Type.String(), '"Chrome on Linux"'),
  createdAt: dateTime,
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'what staff gave: the reason, the proof, the delta, the roles' })
}, { title: 'AuditEvent' })

export const AuditListSchema = Type.Object({
  items: Type.Array(AuditEventSchema, { description: 'newest first' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'AuditList' })

const code = Type.String({ pattern: '^[\\w-]{1,64}$', description: '1 to 64 letters, digits, - or _' })

export const PromocodeSchema = Type.Object({
  code,
  maxUses: Type.Integer({ minimum: 1 }),
  uses: Type.Integer({ minimum: 0 }),
  credits: Type.Integer({ minimum: 0 }),
  expires: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'the last day (UTC) it works; null: it does not expire' }),
  createdAt: dateTime
}, { title: 'Promocode' })

export const PromocodeListSchema = Type.Object({
  items: Type.Array(PromocodeSchema, { description: 'by code' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, { title: 'PromocodeList' })

export const NewPromocodeBodySchema = Type.Object({
  code,
  maxUses: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  credits: Type.Integer({ minimum: 0, maximum: 1000, default: 1 }),
  expires: Type.Optional(Type.String({ format: 'date', description: 'the last day (UTC) it works; absent: it does not expire' })),
  reason: ReasonSchema
}, { title: 'NewPromocodeBody', additionalProperties: false, examples: [{ code: 'SPRING-25', maxUses: 100, credits: 3, expires: '2030-05-31', reason: 'spring campaign' }] })

export const PromocodeParamsSchema = Type.Object({ code })
export const ReasonBodySchema = Type.Object({ reason: ReasonSchema }, { title: 'ReasonBody', additionalProperties: false })

const n = Type.Integer({ minimum: 0 })
export const OverviewSchema = Type.Object({
  users: Type.Object({ total: n, confirmed: n, disabled: n, new24h: Type.Integer({ minimum: 0, description: 'made in the last 24 hours' }) }),
  reports: Type.Object({
    byStatus: Type.Object({ draft: n, queued: n, generating: n, ready: n, failed: n }),
    generated24h: Type.Integer({ minimum: 0, description: 'finished in the last 24 hours' })
  }),
  queue: Type.Object({ waiting: Type.Integer({ minimum: 0, description: 'generation jobs waiting for a worker' }), active: Type.Integer({ minimum: 0, description: 'being worked on' }) }),
  webhooks: Type.Object({ pending: Type.Integer({ minimum: 0, description: 'deliveries still to be made' }), failed: Type.Integer({ minimum: 0, description: 'deliveries that gave up' }) }),
  alerts: Type.Object({ pending: Type.Integer({ minimum: 0, description: 'profiles whose new data the alert worker has still to look at' }) })
}, { title: 'Overview' })
