// The holder's security log and notice settings: GET /auth/security-events, GET and PUT /auth/notices
// (docs/security.md, Notices; docs/security.md, The security log).
import { Type, type Static } from '@sinclair/typebox'

export const SecurityEventSchema = Type.Object({
  kind: Type.String({
    description: 'what happened: signin.success, signin.failure, mfa.verify.success, mfa.verify.failure, signout, signup, confirm, ' +
      'password.change, password.reset, password.removed, idp.link, idp.unlink, mfa.totp.confirm, mfa.totp.remove, passkey.add, ' +
      'passkey.remove, mfa.factors.removed, apikey.create, apikey.revoke, webhook.create, webhook.disable, session.end, or a staff action admin.*'
  }),
  createdAt: Type.String({ format: 'date-time' }),
  device: Type.Union([Type.String(), Type.Null()], {
    description: 'the User-Agent of the request as a person reads it, "Chrome on Linux"; null when it names no known browser or system, and for a staff action'
  }),
  ip: Type.Union([Type.String(), Type.Null()], { description: "the request's address; null for an operator's command and for a staff action" }),
  by: Type.Union([Type.Literal('you'), Type.Literal('staff')], { description: 'staff: done by the service\'s support staff, not from the account' })
}, { title: 'SecurityEvent' })

export const SecurityEventListSchema = Type.Object({
  items: Type.Array(SecurityEventSchema, { description: 'newest first' }),
  total: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean()
}, {
  title: 'SecurityEventList',
  examples: [{
    items: [
      { kind: 'signin.success', createdAt: '2030-01-02T09:30:00.000Z', device: 'Firefox on Linux', ip: '203.0.113.7', by: 'you' },
      { kind: 'admin.credits', createdAt: '2030-01-01T12:00:00.000Z', device: null, ip: null, by: 'staff' }
    ],
    total: 2,
    hasMore: false
  }]
})
export type SecurityEventList = Static<typeof SecurityEventListSchema>

export const NoticeSettingsSchema = Type.Object({
  newDevice: Type.Boolean({ description: 'mail a notice when the account is signed in to from a device not seen on it for 90 days (the only notice that can be turned off)' })
}, { title: 'NoticeSettings', additionalProperties: false, examples: [{ newDevice: true }] })
export type NoticeSettings = Static<typeof NoticeSettingsSchema>
