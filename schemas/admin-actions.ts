// The staff write actions on an account (docs/operations.md, Support → Actions): disable, enable,
// credits, end sessions, remove second factors, send a link. Every body carries what the audit row
// and the holder's notice record: a reason (the factor removal: the proof of identity).
import { Type } from '@sinclair/typebox'

// One line of a staff member's own words: written into the audit trail and mailed to the holder.
const ReasonSchema = Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'why, in the staff member\'s words: the audit row keeps it and the holder\'s notice quotes it' })


export const AdminReasonBodySchema = Type.Object({ reason: ReasonSchema }, { title: 'AdminReasonBody', additionalProperties: false, examples: [{ reason: 'ticket 4711: the holder asked us to lock the account' }] })

export const AdminCreditsBodySchema = Type.Object({
  delta: Type.Integer({ minimum: -1000, maximum: 1000, not: { const: 0 }, description: 'credits to add (negative: to take away); a non-zero integer within ±1000' }),
  reason: ReasonSchema
}, { title: 'AdminCreditsBody', additionalProperties: false, examples: [{ delta: 3, reason: 'ticket 4711: three reports failed on our side' }] })

export const AdminCreditsSchema = Type.Object({ credits: Type.Integer({ description: 'the balance after the change' }) }, { title: 'AdminCredits' })

export const AdminSessionsEndedSchema = Type.Object({ ended: Type.Integer({ description: 'how many live sessions ended' }) }, { title: 'AdminSessionsEnded' })

export const AdminFactorsBodySchema = Type.Object({
  proof: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'how the person\'s identity was proved out of band (a video call against the ID on file, ...): kept in the audit row' }),
  reason: Type.Optional(ReasonSchema)
}, { title: 'AdminFactorsBody', additionalProperties: false, examples: [{ proof: 'video call, ID card checked against the billing name', reason: 'lost phone' }] })

export const AdminFactorsRemovedSchema = Type.Object({
  totp: Type.Boolean({ description: 'an authenticator app (or its unconfirmed set-up) was removed' }),
  recoveryCodes: Type.Integer({ description: 'recovery codes removed' }),
  passkeys: Type.Integer({ description: 'passkeys removed' }),
  sessionsEnded: Type.Integer(),
  apiKeysRevoked: Type.Integer(),
  webhooksDisabled: Type.Integer()
}, { title: 'AdminFactorsRemoved' })

export const AdminMailBodySchema = Type.Object({
  kind: Type.Union([Type.Literal('recovery'), Type.Literal('confirmation')], { description: 'a password-recovery link, or a new confirmation link' }),
  reason: ReasonSchema
}, { title: 'AdminMailBody', additionalProperties: false, examples: [{ kind: 'recovery', reason: 'ticket 4711: cannot sign in' }] })

export const AdminMailQueuedSchema = Type.Object({
  status: Type.Literal('queued', { description: 'the mail goes to the account\'s own address; its link is never answered' })
}, { title: 'AdminMailQueued' })
