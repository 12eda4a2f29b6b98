// The staff write actions on an account under /admin/users/{id} (docs/operations.md, Support →
// Actions): disable, enable, credits, end sessions, remove second factors, send a link. Each needs a
// staff role (`config.staff`: the least that may call it; src/plugins/staff.ts) at level 2 and a fresh
// proof, never an API key; each writes an `admin.*` audit row naming the staff member, the account
// and the reason, and mails the holder a notice after it changed something (src/services/notices).
// A malformed id is 404, as on every route (src/plugins/errors.ts); an unknown one too.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, IdParamsSchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import {
  AdminCreditsBodySchema, AdminCreditsSchema, AdminFactorsBodySchema, AdminFactorsRemovedSchema, AdminMailBodySchema,
  AdminMailQueuedSchema, AdminReasonBodySchema, AdminSessionsEndedSchema
} from '../../../schemas/admin-actions.ts'
import { notFound } from '../../errors.ts'
import { requestMeta } from '../accounts/normalize.ts'
import { AdminUserSchema } from '../../../schemas/admin.ts'

const tags = ['admin']
const security = [{ bearer: [] }]
const errors = errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 409, 429, 500, 503)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const userActionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { staffActions: actions, notices } = app.services
  app.addHook('onRequest', app.authenticate)

  /** the account as it is now, for disable and enable */
  async function userNow (id: string) {
    const user = await actions.user(id)
    if (!user) throw notFound('no such user')
    return user
  }

  // Disable and enable: the same request (a reason), the same answer (the account as it is now), a
  // notice to the holder only when the account changed.
  const switches = [{
    action: 'disable',
    operationId: 'adminDisableUser',
    summary: 'Disable an account: its sessions end, its API keys are revoked and webhook endpoints disabled, its mails held; it signs in to nothing until enabled (your own: 409)',
    // The holder learns why from the mail, the one mail a disabled account still gets. Sent with no
    // device or address: those would be the staff member's (docs/decisions/accounts.md, Staff
    // actions).
    notice: 'Your account was disabled: its sessions ended, its API keys were revoked and its webhook endpoints disabled'
  }, {
    action: 'enable',
    operationId: 'adminEnableUser',
    summary: 'Enable a disabled account again: it signs in as before, nothing of it was lost (revoked keys and disabled endpoints stay so)',
    notice: 'Your account was enabled again'
  }] as const

  for (const { action, operationId, summary, notice } of switches) {
    app.post(`/users/:id/${action}`, {
      config: { staff: 'support', freshProof: true },
      schema: {
        operationId, tags, security, summary,
        params: IdParamsSchema, body: AdminReasonBodySchema,
        response: { 200: AdminUserSchema, ...errors }
      }
    }, async (request) => {
      const { id } = request.params
      const { reason } = request.body
      const { changed } = await actions[action](id, request.user.id, reason, requestMeta(request))
      if (changed) await notices.send(id, { what: notice, byStaff: { reason } })
      return await userNow(id)
    })
  }

  app.post('/users/:id/credits', {
    config: { staff: 'admin', freshProof: true },
    schema: {
      operationId: 'adminChangeCredits', tags, security,
      summary: 'Add report credits to an account, or take some away (never below 0: 409); a ledger row and an audit row',
      params: IdParamsSchema, body: AdminCreditsBodySchema,
      response: { 200: AdminCreditsSchema, ...errors }
    }
  }, async (request) => {
    const { id } = request.params
    const { delta, reason } = request.body
    const credits = await actions.credits.change(id, request.user.id, delta, reason, requestMeta(request))
    const what = delta > 0 ? `${plural(delta, 'report credit')} ${delta === 1 ? 'was' : 'were'} added to your account` : `${plural(-delta, 'report credit')} ${delta === -1 ? 'was' : 'were'} taken from your account`
    await notices.send(id, { what: `${what} (${credits} left)`, byStaff: { reason } })
    return { credits }
  })

  app.delete('/users/:id/sessions', {
    config: { staff: 'support', freshProof: true },
    schema: {
      operationId: 'adminEndSessions', tags, security,
      summary: 'End every session of an account on every instance (its API keys stay)',
      params: IdParamsSchema, body: AdminReasonBodySchema,
      response: { 200: AdminSessionsEndedSchema, ...errors }
    }
  }, async (request) => {
    const { id } = request.params
    const { reason } = request.body
    const ended = await actions.sessions.endAll(id, request.user.id, reason, requestMeta(request))
    await notices.send(id, { what: `Every session of your account was signed out (${plural(ended, 'session')})`, byStaff: { reason } })
    return { ended }
  })

  app.delete('/users/:id/factors', {
    config: { staff: 'admin', freshProof: true },
    schema: {
      operationId: 'adminRemoveFactors', tags, security,
      summary: 'Remove every second factor of an account whose holder proved their identity out of band, as `npm run factors -- remove` (nothing to remove: 409)',
      params: IdParamsSchema, body: AdminFactorsBodySchema,
      response: { 200: AdminFactorsRemovedSchema, ...errors }
    }
  }, async (request) => {
    const { id } = request.params
    const { proof, reason } = request.body
    const removed = await actions.factors.remove(id, request.user.id, proof, reason, requestMeta(request))
    await notices.send(id, {
      what: 'Every second factor of your account was removed (authenticator app, recovery codes, passkeys); its sessions ended, its API keys were revoked and its webhook endpoints disabled',
      byStaff: { reason: reason ?? 'you proved your identity to our support staff' }
    })
    return {
      totp: removed.totp !== null,
      recoveryCodes: removed.codes.length,
      passkeys: removed.keys.length,
      sessionsEnded: removed.ended.length,
      apiKeysRevoked: removed.cut.apiKeys.length,
      webhooksDisabled: removed.cut.webhooks.length
    }
  })

  app.post('/users/:id/mail', {
    config: { staff: 'support', freshProof: true },
    schema: {
      operationId: 'adminSendLink', tags, security,
      summary: 'Mail the account\'s own address a password-recovery or confirmation link (never answered); 409 when the account is disabled, or already confirmed for a confirmation',
      params: IdParamsSchema, body: AdminMailBodySchema,
      response: { 202: AdminMailQueuedSchema, ...errors }
    }
  }, async (request, reply) => {
    const { id } = request.params
    const { kind, reason } = request.body
    await actions.links.send(id, request.user.id, kind, reason, requestMeta(request))
    await notices.send(id, { what: kind === 'recovery' ? 'A password-recovery link was sent to this address' : 'A new confirmation link was sent to this address', byStaff: { reason } })
    return reply.code(202).send({ status: 'queued' as const })
  })
}

export default userActionRoutes
