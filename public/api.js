// The API client of the dashboard. The JWT lives in this module's memory only (never localStorage):
// a reload gets a fresh one from the session cookie through POST /auth/token/refresh.
const BASE = '/api/v1'

let token = null
/** when the JWT in memory was issued (Date.now()) */
let tokenAt = 0
let refreshing = null
let onAuthLost = () => {}
/** the session's cookie answered "second factor required": it was signed in with one factor only */
let secondFactorPending = false

export class ApiError extends Error {
  constructor (status, body, retryAfter = null) {
    super(body?.message ?? `request failed (${status})`)
    this.status = status
    this.body = body
    /** seconds to wait, from a 429's or 503's Retry-After header */
    this.retryAfter = retryAfter
  }
}

function failure (res, data) {
  const header = res.headers.get('retry-after')
  let seconds = header === null ? null : Number(header)
  if (header !== null && !Number.isFinite(seconds)) seconds = Math.max(0, Math.round((Date.parse(header) - Date.now()) / 1000)) || null
  return new ApiError(res.status, data, seconds)
}

export function setToken (value) { token = value; tokenAt = Date.now() }
export function signedIn () { return token !== null }
/** called when a request is refused and the session cannot give a new JWT */
export function whenAuthLost (fn) { onAuthLost = fn }

async function send (method, path, body, useToken) {
  const headers = { accept: 'application/json' }
  // a bodyless POST must not claim JSON: Fastify refuses an empty JSON body
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (useToken && token) headers.authorization = `Bearer ${token}`
  const res = await fetch(BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin'
  })
  const data = res.status === 204 ? null : await res.json().catch(() => null)
  return { res, data }
}

// The session's last use (the account page's "last used") moves only when a refresh rolls it, and
// a JWT lasts far longer than a page is used. So a page in use asks for a fresh JWT in the
// background at most every ROLL_EVERY_MS: the request at hand goes on with the JWT it has.
const ROLL_EVERY_MS = 2 * 60_000

function rollOnUse () {
  if (token === null || refreshing || Date.now() - tokenAt < ROLL_EVERY_MS) return
  tokenAt = Date.now()
  send('POST', '/auth/token/refresh', undefined, false).then(({ res, data }) => {
    // a refusal is left to the next request's own 401: this one only keeps the session rolling
    if (res.ok && data?.status === 'success' && data.token && token !== null) setToken(data.token)
  }, () => {})
}

async function request (method, path, body) {
  rollOnUse()
  let { res, data } = await send(method, path, body, true)
  if (res.status === 401) {
    // the JWT expired or was never there: the session cookie may still give a new one
    if (await refresh()) ({ res, data } = await send(method, path, body, true))
    if (res.status === 401) {
      token = null
      onAuthLost()
    }
  }
  if (!res.ok) throw failure(res, data)
  return data
}

/** a fresh JWT from the session cookie; false when there is no signed-in session (or it waits for its second factor) */
export function refresh () {
  refreshing ??= send('POST', '/auth/token/refresh', undefined, false)
    .then(({ res, data }) => {
      secondFactorPending = isSecondFactorRequired(res.status, data)
      if (res.ok && data?.status === 'success' && data.token) {
        setToken(data.token)
        return true
      }
      token = null
      return false
    }, () => false)
    .finally(() => { refreshing = null })
  return refreshing
}

// Form endpoints answer HTTP 200 with {status:"error", fieldError} on a refusal (spec rule 1).
async function form (path, body, method = 'POST') {
  const { res, data } = await send(method, path, body, false)
  if (!res.ok) throw failure(res, data)
  return data
}

// A sign-in of an account with a second factor answers mfaRequired: its JWT (level 1) reaches only
// the second factor's check, sign-out and the account's info until POST /auth/mfa/verify.
export async function signIn (email, password, remember) {
  const result = await form('/auth/signin', { email, password, token: true, remember })
  if (result.status === 'success') setToken(result.token)
  return result
}

const isSecondFactorRequired = (status, data) => status === 403 && /second factor required/i.test(data?.message ?? '')
/** whether the last refresh found a session that waits for its second factor (a reload after the password) */
export const needsSecondFactor = () => secondFactorPending

/** {code} or {recoveryCode}: the session's second factor; the answer's JWT is kept (by the session cookie when no JWT is held) */
export async function verifySecondFactor (proof) {
  const { res, data } = await send('POST', '/auth/mfa/verify', proof, true)
  if (!res.ok) throw failure(res, data)
  if (data.status === 'success') {
    secondFactorPending = false
    setToken(data.token)
  }
  return data
}

export function signUp (body) { return form('/auth/signup', body) }

export async function signOut () {
  try {
    await request('POST', '/auth/signout')
  } finally {
    token = null
    secondFactorPending = false
  }
}

export const info = () => request('GET', '/auth/info')

/**
 * the account's info at the second-factor step (its level-1 JWT reads it), or null where it cannot
 * be read (a reload holds no JWT): never a sign-out, as a refused read is no loss of the session
 */
export async function pendingAccountInfo () {
  if (token === null) return null
  try {
    const { res, data } = await send('GET', '/auth/info', undefined, true)
    return res.ok ? data : null
  } catch {
    return null
  }
}

/** {googleClientId, billing, devOutbox, development}: what this deployment offers the page */
export async function clientConfig () {
  const fallback = { googleClientId: null, billing: true, devOutbox: null, development: false }
  try {
    const { res, data } = await send('GET', '/client-config', undefined, false)
    return res.ok && data ? { ...fallback, ...data } : fallback
  } catch {
    return fallback
  }
}

// Mailed links (the secret travels in the API path, which the server's logs redact)
const secretPath = (secret) => encodeURIComponent(secret)

/** 'confirmed', or 'invalid' for an unknown, used-up or expired link */
export async function confirmEmail (secret) {
  const { res, data } = await send('POST', `/auth/confirm/${secretPath(secret)}`, undefined, false)
  if (res.ok) return 'confirmed'
  if (res.status === 404) return 'invalid'
  throw failure(res, data)
}
/**
 * 'unsubscribed'; 'invalid' for a token the service did not sign; 'expired' for a link past its 90
 * days or of an account deleted since (the digest mail's link; no sign-in)
 */
export async function unsubscribeDigest (token) {
  const { res, data } = await send('POST', '/alerts/unsubscribe', { token }, false)
  if (res.ok) return 'unsubscribed'
  if (res.status === 400) return 'invalid'
  if (res.status === 404) return 'expired'
  throw failure(res, data)
}
export const resendConfirmation = () => request('POST', '/auth/confirm/resend')
export const requestRecovery = (email) => form('/auth/recovery', { email })
export const checkRecovery = (secret) => form(`/auth/recovery/${secretPath(secret)}`, undefined, 'GET')
/** keepApiKeys: keep the account's API keys and webhook endpoints (the reset revokes and disables them otherwise) */
export const resetPassword = (secret, password, keepApiKeys = false) =>
  form(`/auth/recovery/${secretPath(secret)}`, keepApiKeys ? { password, keepApiKeys: true } : { password })

/** Google Identity Services' credential response, posted as it comes (clientId, credential, select_by) */
export async function googleSignIn ({ clientId, credential, select_by: selectBy }) {
  const result = await form('/auth/idp', { clientId, credential, select_by: selectBy ?? 'btn', token: true })
  if (result.status === 'success') setToken(result.token)
  return result
}
export const unlinkGoogle = () => request('DELETE', '/auth/idp')

// Billing: Stripe's pages are opened by sending the browser to the URL the API answers
export const checkout = (successUrl, cancelUrl) => request('POST', '/billing/checkout', { successUrl, cancelUrl })
export const billingPortal = (returnUrl) => request('POST', '/billing/portal', { returnUrl })
export const redeemPromocode = (promocode) => request('POST', '/billing/promocode', { promocode })

// The account: sessions, password, deletion
export const sessions = () => request('GET', '/auth/sessions')
export const endSession = (sessionId) => request('DELETE', `/auth/sessions/${encodeURIComponent(sessionId)}`)
export const endOtherSessions = () => request('DELETE', '/auth/sessions')
export const changePassword = (currentPassword, newPassword) => request('POST', '/auth/password', { currentPassword, newPassword })
export const securityEvents = (offset = 0, limit = 10) => request('GET', `/auth/security-events${query({ offset, limit })}`)
export const noticeSettings = () => request('GET', '/auth/notices')
export const setNoticeSettings = (settings) => request('PUT', '/auth/notices', settings)
export async function deleteAccount (proof) {
  await request('DELETE', '/auth/account', proof)
  token = null
}

// A nonce for the next Google proof of the owner (deleting the account, POST /auth/reauthenticate):
// Google puts it into the credential it signs, and the server accepts it once
export const googleNonce = () => request('POST', '/auth/google/nonce')

// Fresh authentication: a sensitive call of a session that last proved its owner too long ago is
// refused 403 "re-authentication required"; this proof renews it, and its answer is the JWT to use.
export async function reauthenticate (proof) {
  const result = await request('POST', '/auth/reauthenticate', proof)
  setToken(result.token)
  return result
}

// Passkeys: the ceremonies' options and the browser's answers (public/passkeys.js runs the browser's half)
export const passkeyRegistrationOptions = () => request('POST', '/auth/passkeys/register/options')
export const registerPasskey = (response, name) => request('POST', '/auth/passkeys/register/verify', name ? { response, name } : { response })
export const passkeys = () => request('GET', '/auth/passkeys')
/** proof: {passkey} (an assertion of this passkey), which removing the account's last second factor needs */
export const removePasskey = (passkeyId, proof) => request('DELETE', `/auth/passkeys/${encodeURIComponent(passkeyId)}`, proof)
export const passkeySigninOptions = () => form('/auth/passkeys/signin/options')
export async function passkeySignIn (response, remember) {
  const result = await form('/auth/passkeys/signin/verify', { response, token: true, remember })
  if (result.status === 'success') setToken(result.token)
  return result
}

// The authenticator app (TOTP): set up (fresh proof), confirm with a first code (ten recovery codes,
// shown once), remove (fresh proof). Confirming and removing answer the session's new JWT.
export const beginTotp = () => request('POST', '/auth/mfa/totp')
export async function confirmTotp (code) {
  const result = await request('POST', '/auth/mfa/totp/confirm', { code })
  if (result.status === 'success') setToken(result.token)
  return result
}
/** proof: {code} or {recoveryCode}, which removing the account's last second factor needs */
export async function removeTotp (proof) {
  const result = await request('DELETE', '/auth/mfa/totp', proof)
  setToken(result.token)
  return result
}

// Programs: API keys (the key is in the create answer only) and webhooks (the secret likewise)
export const apiKeys = () => request('GET', '/auth/api-keys')
export const createApiKey = (body) => request('POST', '/auth/api-keys', body)
export const revokeApiKey = (keyId) => request('DELETE', `/auth/api-keys/${encodeURIComponent(keyId)}`)
const hook = (webhookId) => `/webhooks/${encodeURIComponent(webhookId)}`
export const webhooks = () => request('GET', '/webhooks')
export const createWebhook = (url, events) => request('POST', '/webhooks', { url, events })
export const deleteWebhook = (webhookId) => request('DELETE', hook(webhookId))
export const rotateWebhook = (webhookId) => request('POST', `${hook(webhookId)}/rotate`)
export const testWebhook = (webhookId) => request('POST', `${hook(webhookId)}/test`)
export const deliveries = (webhookId, offset = 0, limit = 10) => request('GET', `${hook(webhookId)}/deliveries${query({ offset, limit })}`)
export const retryDelivery = (webhookId, deliveryId) => request('POST', `${hook(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/retry`)

// Staff (the console, public/views/admin/): every call needs a staff role and a session at level 2
// (403 "second factor required" otherwise); the writes also need a fresh proof (403 "re-authentication
// required", public/fresh-proof.js). `support` may read, disable, enable, end sessions and send a mail.
const staffUser = (userId) => `/admin/users/${encodeURIComponent(userId)}`
export const adminOverview = () => request('GET', '/admin/overview')
/** params: {q, status, offset, limit} */
export const adminUsers = (params) => request('GET', `/admin/users${query(params)}`)
export const adminUser = (userId) => request('GET', staffUser(userId))
/** params: {userId, actorId, kind, from, to, offset, limit} */
export const adminAudit = (params) => request('GET', `/admin/audit${query(params)}`)
export const adminDisable = (userId, reason) => request('POST', `${staffUser(userId)}/disable`, { reason })
export const adminEnable = (userId, reason) => request('POST', `${staffUser(userId)}/enable`, { reason })
export const adminCredits = (userId, delta, reason) => request('POST', `${staffUser(userId)}/credits`, { delta, reason })
export const adminEndSessions = (userId, reason) => request('DELETE', `${staffUser(userId)}/sessions`, { reason })
export const adminRemoveFactors = (userId, proof) => request('DELETE', `${staffUser(userId)}/factors`, { proof })
/** kind: 'recovery' or 'confirmation'; the mail goes to the account's own address */
export const adminMail = (userId, kind, reason) => request('POST', `${staffUser(userId)}/mail`, { kind, reason })
export const adminSetRole = (userId, role, reason) => request('PUT', `${staffUser(userId)}/role`, { role, reason })
export const adminPromocodes = () => request('GET', '/admin/promocodes')

function query (params) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

const id = (reportId) => encodeURIComponent(reportId)

export const searchProfiles = (q, source, limit = 10) => request('GET', `/profiles${query({ q, source, limit })}`)
export const generateReport = (reportId) => request('POST', `/report/${id(reportId)}/generate`)

// GET /report/{id} lists no profile before the report is ready; the create and list answers do.
const known = new Map()
const remember = (r) => known.set(r.id, { profiles: r.profiles, createdAt: r.createdAt })

export async function createReport (profiles) {
  const report = await request('POST', '/report', { profiles })
  remember(report)
  return report
}

export async function listReports (offset = 0, limit = 10) {
  const page = await request('GET', `/report${query({ offset, limit })}`)
  for (const r of page.items) remember(r)
  return page
}

/** {profiles, createdAt} of a report, from what this page has seen, else from the (newest-first) list */
export async function reportSummary (reportId) {
  for (let offset = 0; !known.has(reportId) && offset < 500; offset += 100) {
    const page = await listReports(offset, 100)
    if (!page.hasMore) break
  }
  return known.get(reportId) ?? { profiles: [], createdAt: null }
}

export const getReport = (reportId) => request('GET', `/report/${id(reportId)}`)
export const deleteReport = (reportId) => request('DELETE', `/report/${id(reportId)}`)
export const interests = (reportId, source) => request('GET', `/report/${id(reportId)}/interests${query({ source })}`)
export const friends = (reportId, params) => request('GET', `/report/${id(reportId)}/friends${query(params)}`)
export const friendDetail = (reportId, friendId, source) => request('GET', `/report/${id(reportId)}/friends/${encodeURIComponent(friendId)}${query({ source })}`)
export const diffs = (reportId, params) => request('GET', `/report/${id(reportId)}/diffs${query(params)}`)

/** a ready report's export as a file: {blob, filename} (the name from Content-Disposition) */
export async function exportReport (reportId, format, part) {
  // one operation per media type: the JSON at /export, the CSV at /export.csv
  const path = format === 'csv' ? `/report/${id(reportId)}/export.csv${query({ part })}` : `/report/${id(reportId)}/export`
  const get = () => fetch(BASE + path, { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: 'same-origin' })
  let res = await get()
  if (res.status === 401 && await refresh()) res = await get()
  if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null))
  const filename = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `report-${reportId}.${format}`
  return { blob: await res.blob(), filename }
}

/** the URL of the report's event stream; EventSource authenticates with the session cookie */
export const streamUrl = (reportId) => `${BASE}/sse/${id(reportId)}`

// Watches and alerts: a watch on a ready report raises an alert when its profiles' data brings a later month
export const watches = (offset = 0, limit = 100) => request('GET', `/watches${query({ offset, limit })}`)
export const watchReportChanges = (reportId) => request('POST', `/report/${id(reportId)}/watch`)
export const unwatchReport = (reportId) => request('DELETE', `/report/${id(reportId)}/watch`)
export const alerts = (params) => request('GET', `/alerts${query(params)}`)
export const markAlertRead = (alertId) => request('POST', `/alerts/${encodeURIComponent(alertId)}/read`)
export const markAllAlertsRead = () => request('POST', '/alerts/read')
/** the user's alert stream; EventSource authenticates with the session cookie */
export const alertStreamUrl = () => `${BASE}/sse/alerts`
