// Builds the services behind the routes from config and the database, once, and hands them to the
// routes as app.services. Tests can pass their own clock or mailer.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ACCOUNT_CHANGED_CHANNEL, createAccountService } from '../services/accounts.ts'
import { createAuditService } from '../services/audit.ts'
import { createBillingService } from '../services/billing.ts'
import { createCaptchaService } from '../services/captcha.ts'
import { createMailService, type MailService } from '../services/mail.ts'
import { createPasswordService } from '../services/passwords.ts'
import { createPromocodeService } from '../services/promocodes.ts'
import { createReportService, REPORT_CHANGED_CHANNEL } from '../services/reports.ts'
import { createRecoveryService } from '../services/recovery.ts'
import { createGoogleAccountService, createGoogleService } from '../services/google.ts'
import { createSessionControl } from '../services/session-control.ts'
import { createPasswordChangeService } from '../services/password-change.ts'
import { createPasswordProof } from '../services/password-proof.ts'
import { createAccountDeletionService } from '../services/account-deletion.ts'

export interface ServicesOptions {
  config: Config
  now?: () => number
  mail?: MailService
}

function buildServices (app: FastifyInstance, opts: ServicesOptions) {
  const { config, now } = opts
  const database = app.database
  const passwords = createPasswordService(config.argon2, config.argon2Concurrency)
  app.metrics?.watchPasswords(passwords)
  const mail = opts.mail ?? createMailService({ ...config.mail, log: app.log })
  const audit = createAuditService({ database })
  const captcha = createCaptchaService(config.captcha)
  const promocodes = createPromocodeService({ db: database.db, now })
  const accounts = createAccountService({
    database, passwords, captcha, mail, audit, promocodes, now,
    publicUrl: config.publicUrl,
    signupFreeReports: config.signupFreeReports
  })
  // the writers of what GET /auth/info shows drop the account's in-memory view as they write it
  const accountChanged = accounts.changed
  const reports = createReportService({ database, queue: app.queue.reports, now, accountChanged })
  // The session service is decorated by the auth plugin, registered after this one: resolved at call time.
  const endSessionsOfUser = (userId: string) => app.sessions.endAllOfUser(userId)
  const announceEnded = async (publicIds: string[]) => { app.sessions.announceEnded(publicIds) }
  const sessionControl = createSessionControl({ database, announceEnded, now })
  const recovery = createRecoveryService({ database, passwords, mail, audit, endSessionsOfUser, accountChanged, now, publicUrl: config.publicUrl })
  const google = createGoogleService(config.google)
  const googleAccounts = createGoogleAccountService({
    database, audit, mail, accountChanged, now,
    endPasswordSessionsOfUser: async (userId) => { await sessionControl.endPasswordSessions(userId) },
    signupFreeReports: config.signupFreeReports
  })
  // the current password is checked by sign-in's own check, backoff and all
  const checkPassword = accounts.signin
  const passwordChange = createPasswordChangeService({ database, passwords, mail, audit, sessionControl, checkPassword, accountChanged })
  const passwordProof = createPasswordProof({ database, now })
  const accountDeletion = createAccountDeletionService({
    database, passwords, checkPassword, announceEnded, accountChanged, now,
    verifyGoogle: google.verify,
    stripe: config.stripe,
    log: app.log
  })
  const billing = createBillingService({
    database, now, log: app.log, accountChanged,
    config: config.stripe,
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    defaultReturnUrl: `${config.publicUrl}/`
  })
  return {
    passwords, mail, audit, captcha, promocodes, accounts, reports, recovery, google, googleAccounts, billing,
    sessionControl, passwordChange, passwordProof, accountDeletion
  }
}

export type Services = ReturnType<typeof buildServices>

declare module 'fastify' {
  interface FastifyInstance { services: Services }
}

async function servicesPlugin (app: FastifyInstance, opts: ServicesOptions) {
  const services = buildServices(app, opts)
  app.decorate('services', services)
  // Changes made by other instances and processes (drizzle/0003's triggers) reach the in-memory
  // views here; on every (re)connect of the LISTEN connection they start afresh, as notifications
  // may have been missed meanwhile.
  const { accounts, reports } = services
  await app.events.on(ACCOUNT_CHANGED_CHANNEL, (userId) => accounts.changed(userId), () => accounts.forgetAll())
  await app.events.on(REPORT_CHANGED_CHANNEL, (reportId) => reports.changed(reportId), () => reports.forgetAll())
  app.addHook('onClose', async () => { await services.mail.close() })
}

export default fp(servicesPlugin, { name: 'services', dependencies: ['db', 'events', 'queue', 'metrics'] })
