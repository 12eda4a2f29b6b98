// Builds the services behind the routes from config and the database, once, and hands them to the
// routes as app.services. What it does not build, it takes from the plugins it declares: the
// database, the report queue, the metrics, the session service and the account-change emitter.
// Tests can pass their own clock or mailer.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { createAccountService } from '../services/accounts/index.ts'
import { createAuditService, createEmailHasher, type RequestMeta } from '../services/accounts/audit.ts'
import { createBillingService } from '../services/billing/index.ts'
import { createCaptchaService } from '../services/accounts/captcha.ts'
import { createMailService, type MailService } from '../services/accounts/mail.ts'
import { createPasswordService } from '../services/accounts/passwords.ts'
import { createPromocodeService } from '../services/billing/promocodes.ts'
import { createReportService, REPORT_CHANGED_CHANNEL } from '../services/reports/index.ts'
import { createRecoveryService } from '../services/accounts/recovery.ts'
import { createGoogleAccountService, createGoogleService } from '../services/accounts/google.ts'
import { createSessionControl } from '../services/sessions/control.ts'
import { createCredentialChanges } from '../services/sessions/credential-change.ts'
import { createPasswordChangeService } from '../services/accounts/password-change.ts'
import { createPasswordProof } from '../services/accounts/password-proof.ts'
import { createAccountDeletionService } from '../services/accounts/deletion.ts'
import { createOwnerProof } from '../services/accounts/owner-proof.ts'
import { createGoogleNonces } from '../services/accounts/google-nonces.ts'
import { createImageService } from '../services/images/index.ts'
import { createOutboundFetch } from '../services/outbound/fetch.ts'
import { createWebhookService } from '../services/webhooks/index.ts'
import { createApiKeyService } from '../services/api-keys/index.ts'
import { createPasskeyService, relyingPartyOf } from '../services/passkeys/index.ts'
import { createMfaService } from '../services/mfa/index.ts'
import { createSecondFactorCheck } from '../services/accounts/second-factor.ts'
import { createAccessCutOff } from '../services/accounts/cut-off.ts'
import { createCodeBudget } from '../services/accounts/code-budget.ts'
import { createWatchService } from '../services/watches/index.ts'
import { createAlertReading } from '../services/alerts/reading.ts'
import { createAlertDigest } from '../services/alerts/digest.ts'
import { createUnsubscribeTokens } from '../services/alerts/unsubscribe-tokens.ts'
import { createRoleReader } from '../services/staff/roles.ts'
import { createAdminEmails } from '../services/staff/admin-emails.ts'
import { createRoleChanges } from '../services/staff/role-change.ts'
import { createStaffUsers } from '../services/staff/users.ts'
import { createStaffAuditLog } from '../services/staff/audit-log.ts'
import { createStaffOverview } from '../services/staff/overview.ts'
import { createStaffPromocodes } from '../services/staff/promocodes.ts'
import { GENERATE_QUEUE } from '../jobs/queue.ts'
import { createNotices } from '../services/notices/index.ts'
import { createFactorRemoval } from '../services/accounts/factor-removal.ts'
import { createStaffActions } from '../services/staff/actions.ts'
import { createNewDeviceNotices } from '../services/notices/new-device.ts'
import { createSecurityLog } from '../services/accounts/security-log.ts'

const AUDIT_PRUNE_MS = 3600_000

export interface ServicesOptions {
  config: Config
  /** the API's prefix (/api/v1): the digest mail's one-click unsubscribe URL is under it */
  apiPrefix: string
  now?: () => number
  mail?: MailService
}

function buildServices (app: FastifyInstance, opts: ServicesOptions) {
  const { config, now } = opts
  const { database, sessions, accountChanges } = app
  const passwords = createPasswordService(config.argon2, config.argon2Concurrency, config.publicUrl)
  app.metrics?.watchPasswords(passwords)
  const mail = opts.mail ?? createMailService({ ...config.mail, log: app.log })
  const audit = createAuditService({ database, retentionDays: config.auditRetentionDays, now })
  // security notices to the holder (src/services/notices/index.ts), and the sign-ins from new devices that send one
  const notices = createNotices({ database, mail, publicUrl: config.publicUrl, now })
  const newDevices = createNewDeviceNotices({ database, notices, now })
  const securityLog = createSecurityLog({ database })
  const emailHasher = createEmailHasher(config.mfa)
  const captcha = createCaptchaService(config.captcha)
  const promocodes = createPromocodeService({ db: database.db, now })
  const mfa = createMfaService({
    database, now, encryptionKey: config.mfa.encryptionKey, previousKeys: config.mfa.previousKeys, changed: accountChanges.changed
  })
  // ADMIN_EMAILS: a listed address becomes admin once confirmed (src/services/staff/admin-emails.ts)
  const adminEmails = createAdminEmails({ database, audit, emails: config.adminEmails, changed: accountChanges.changed })
  const accounts = createAccountService({
    database, passwords, captcha, mail, audit, promocodes, accountChanges, adminEmails, now,
    publicUrl: config.publicUrl,
    signupFreeReports: config.signupFreeReports
  })
  const reports = createReportService({ database, queue: app.queue.reports, now, accountChanges, events: app.events })
  const announceEnded = async (publicIds: string[]) => { sessions.announceEnded(publicIds) }
  const sessionControl = createSessionControl({ database, announceEnded, now })
  // every credential change goes through credentials.change (docs/decisions/accounts.md, Credential
  // versions)
  const credentials = createCredentialChanges({ database, announceEnded, now })
  // every API key revoked and every webhook endpoint disabled (docs/decisions/accounts.md, Recovery
  // cuts off an intruder)
  const accessCutOff = createAccessCutOff({ database, audit, announceEnded: sessions.announceEnded })
  const recovery = createRecoveryService({
    database, passwords, mail, notices, audit, changeCredential: credentials.change, cutOff: accessCutOff, accountChanges, now, publicUrl: config.publicUrl
  })
  const google = createGoogleService(config.google)
  const googleAccounts = createGoogleAccountService({
    database, audit, notices, accountChanges, adminEmails, now,
    changeCredential: credentials.change,
    signupFreeReports: config.signupFreeReports
  })
  // the current password is checked by sign-in's own check, backoff and all
  const checkPassword = accounts.signin
  const passwordChange = createPasswordChangeService({
    database, passwords, notices, audit, sessionControl, checkPassword, accountChanges, changeCredential: credentials.change
  })
  const passwordProof = createPasswordProof({ database, now })
  const googleNonces = createGoogleNonces({ database, now })
  const secondFactor = createSecondFactorCheck({ database, mfa, audit, budget: createCodeBudget({ database, now }) })
  const checkCode = (userId: string, code: string, meta: RequestMeta) => secondFactor.checkCode(userId, code, 'code', meta)
  const passkeys = createPasskeyService({
    database, now,
    relyingParty: relyingPartyOf(config.publicUrl),
    onRefused: (reason) => app.log.info({ reason }, 'a passkey response was refused'),
    changed: accountChanges.changed
  })
  const ownerProof = createOwnerProof({ database, passwords, checkPassword, checkCode, checkPasskey: passkeys.verifyAssertion, verifyGoogle: google.verify, googleNonces, now })
  const accountDeletion = createAccountDeletionService({
    database, ownerProof, announceEnded, accountChanges, now, audit, emailHasher,
    stripe: config.stripe,
    log: app.log
  })
  const billing = createBillingService({
    database, now, log: app.log, accountChanges,
    config: config.stripe,
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    defaultReturnUrl: `${config.publicUrl}/`
  })
  const outbound = createOutboundFetch({ allowPrivate: config.outbound.allowPrivate, httpsOnly: config.production })
  const images = createImageService({ database, fetch: outbound, log: app.log, now })
  const webhooks = createWebhookService({ database, now, ...config.webhooks })
  const apiKeys = createApiKeyService({
    database, now,
    isEnded: sessions.isEnded,
    announceEnded: sessions.announceEnded,
    onWriteError: (err) => app.log.warn({ err }, 'recording an API key\'s last use failed')
  })
  const watches = createWatchService({ database, reports, limits: config.alerts, now })
  const alerts = createAlertReading({ database, now })
  // the digest mail and its unsubscribe tokens; the queue plugin runs its loop where workers run
  const unsubscribeTokens = createUnsubscribeTokens(config.mfa, now)
  const alertDigest = createAlertDigest({
    database, send: mail.send, tokens: unsubscribeTokens, publicUrl: config.publicUrl, apiPrefix: opts.apiPrefix,
    intervalH: config.alerts.digestIntervalH, now, log: app.log
  })
  const roles = createRoleReader({ database })
  // what staff read and change at /admin (docs/operations.md, Support)
  const staff = {
    users: createStaffUsers({ database, now }),
    roles: createRoleChanges({ database, audit, changed: accountChanges.changed }),
    audit: createStaffAuditLog({ database }),
    overview: createStaffOverview({ database, queue: app.queue.boss, queueName: GENERATE_QUEUE, now }),
    promocodes: createStaffPromocodes({ database, promocodes, audit })
  }
  // every second factor of an account removed: npm run factors and staff (src/services/accounts/factor-removal.ts)
  const factorRemoval = createFactorRemoval({ credentials, cutOff: accessCutOff })
  // disable, enable, credits, end sessions, remove factors, send a link (src/services/staff/actions.ts)
  const staffActions = createStaffActions({
    database, audit, cutOff: accessCutOff, removal: factorRemoval, recovery, accounts, announceEnded: sessions.announceEnded, accountChanges
  })
  return {
    alertDigest, unsubscribeTokens, roles, notices, newDevices, securityLog, staff, adminEmails, factorRemoval, staffActions,
    passwords, mail, audit, emailHasher, captcha, promocodes, accounts, reports, recovery, google, googleAccounts, billing,
    sessionControl, credentials, accessCutOff, passwordChange, passwordProof, googleNonces, ownerProof, accountDeletion, images, webhooks, apiKeys, mfa, secondFactor,
    passkeys, watches, alerts
  }
}

export type Services = ReturnType<typeof buildServices>

declare module 'fastify' {
  interface FastifyInstance { services: Services }
}

async function servicesPlugin (app: FastifyInstance, opts: ServicesOptions) {
  const services = buildServices(app, opts)
  app.decorate('services', services)
  // Reports changed by other instances and processes (drizzle/0003's trigger) reach the in-memory
  // view here; on every (re)connect of the LISTEN connection it starts afresh, as notifications may
  // have been missed meanwhile.
  const { reports } = services
  await app.events.on(REPORT_CHANGED_CHANNEL, (reportId) => reports.changed(reportId), () => reports.forgetAll())
  // The audit trail's retention: every instance deletes the rows past AUDIT_RETENTION_DAYS once an
  // hour; a delete that finds nothing costs one look into audit_events_created_idx, so no instance needs to be chosen.
  const pruner = setInterval(() => {
    services.audit.prune().catch((err) => app.log.warn({ err }, 'pruning the audit trail failed'))
  }, AUDIT_PRUNE_MS)
  pruner.unref()
  app.addHook('onClose', async () => {
    clearInterval(pruner)
    await services.mail.close()
  })
}

export default fp(servicesPlugin, { name: 'services', dependencies: ['db', 'events', 'queue', 'metrics', 'sessions', 'account-changes'] })
