// app.accountChanges: the account-change emitter (src/services/accounts/changes.ts), fed by this
// process's writers and by the NOTIFYs of every other one.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ACCOUNT_CHANGED_CHANNEL } from '../services/accounts/index.ts'
import { createAccountChanges, type AccountChanges } from '../services/accounts/changes.ts'

declare module 'fastify' {
  interface FastifyInstance { accountChanges: AccountChanges }
}

async function accountChangesPlugin (app: FastifyInstance) {
  const changes = createAccountChanges()
  app.decorate('accountChanges', changes)
  // on every (re)connect of the LISTEN connection the views start afresh: notifications may have been missed
  await app.events.on(ACCOUNT_CHANGED_CHANNEL, (userId) => changes.changed(userId), () => changes.missed())
}

export default fp(accountChangesPlugin, { name: 'account-changes', dependencies: ['events'] })
