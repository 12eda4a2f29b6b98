// The dashboard: restores the session, then routes between the home (search, new report, past
// reports), a report page, the alerts page, the account page and the pages of the mailed links.
// Hash routes (#/, #/report/<id>, #/report/<id>/diffs/<source>/<month>, #/alerts, #/account,
// #/admin… for staff, #/confirm, #/recovery, #/unsubscribe) need nothing from the server; the mailed links' own paths
// (/confirm/<secret>, /recovery/<secret>, /unsubscribe/<token>) are turned into those hashes by
// link.js, which must stay the first import: it takes the secret out of the address bar.
import { mailedLink } from './link.js'
import * as api from './api.js'
import { errorText, fill, h, OFFLINE_TEXT, plural } from './dom.js'
import { subscribed } from './billing.js'
import { authView } from './views/auth.js'
import { homeView } from './views/home.js'
import { reportView } from './views/report.js'
import { accountView } from './views/account.js'
import { confirmView, recoveryView, unsubscribeView } from './views/links.js'
import { secondFactorView } from './views/second-factor.js'
import { alertsView } from './views/alerts.js'
import { adminView } from './views/admin/index.js'
import { isStaff } from './views/admin/common.js'
import { bellNodes, startAlerts, stopAlerts } from './alert-bell.js'

const main = document.getElementById('main')
const account = document.getElementById('account')
const banners = document.getElementById('banners')

let user = null
let config = { googleClientId: null, billing: true, devOutbox: null, development: false }
let dispose = () => {}
/** one-shot things the next home view shows: {passwordReset, revoked} */
let flash = {}
/** what a password reset on this page revoked: the account page says so until the page is left */
let revoked = null
/** this page signed the account up: its banner says "check your inbox" */
let justSignedUp = false

function mount (view) {
  dispose()
  dispose = view.dispose ?? (() => {})
  main.replaceChildren(view.node)
  main.focus({ preventScroll: true })
}

function navigate (hash) {
  if (location.hash === hash) route()
  else location.hash = hash
}

async function refreshUser () {
  try {
    user = await api.info()
  } catch {
    user = null
  }
  renderAccount()
  renderBanners()
}

async function reload () {
  await refreshUser()
  route()
}

function renderAccount () {
  if (!api.signedIn()) {
    stopAlerts()
    account.replaceChildren()
    return
  }
  startAlerts()
  const signOut = h('button', { type: 'button', class: 'button ghost small', id: 'sign-out' }, 'Sign out')
  signOut.addEventListener('click', async () => {
    signOut.disabled = true
    try { await api.signOut() } catch {}
    signedOut()
  })
  fill(account,
    user ? h('span', { class: 'account-email', id: 'account-email-header' }, user.email) : null,
    user ? h('span', { class: 'credits', id: 'credits' }, subscribed(user) ? 'Subscribed' : plural(user.reportCredits, 'credit')) : null,
    bellNodes(),
    // staff only (the API refuses everyone else at /admin): the support desk's console
    isStaff(user) ? h('a', { class: 'button ghost small', href: '#/admin', id: 'admin-link' }, 'Admin') : null,
    h('a', { class: 'button ghost small', href: '#/account', id: 'account-link', title: user ? `Your account: ${user.email}` : 'Your account' }, 'Account'),
    signOut
  )
}

/** the banners above every view: offline, and an account whose address is not confirmed yet */
function renderBanners () {
  const list = []
  if (navigator.onLine === false) list.push(h('div', { class: 'banner warn', id: 'offline-banner', role: 'status' }, OFFLINE_TEXT))
  if (api.signedIn() && user && !user.confirmed) {
    const status = h('span', { class: 'banner-status', role: 'status' })
    const resend = h('button', { type: 'button', class: 'button small', id: 'resend-banner' }, 'Resend the confirmation mail')
    resend.addEventListener('click', async () => {
      resend.disabled = true
      try {
        await api.resendConfirmation()
        status.textContent = `Sent to ${user.email}: check your inbox.`
      } catch (err) {
        status.textContent = errorText(err)
        resend.disabled = false
      }
    })
    // right after sign-up the banner says where the mail went (and, in development, where it is kept)
    list.push(justSignedUp
      ? h('div', { class: 'banner inbox', id: 'check-inbox' },
        h('div', { class: 'banner-text' },
          h('strong', null, 'Check your inbox. '),
          `We sent a link to ${user.email} to confirm your address.`,
          config.devOutbox ? h('span', { class: 'dev-outbox' }, ' Development: the mails are also written to ', h('code', null, config.devOutbox), '.') : null),
        resend, status)
      : h('div', { class: 'banner', id: 'confirm-banner' },
        h('span', { class: 'banner-text' }, 'Your e-mail address is not confirmed yet: open the link in the mail we sent you.'), resend, status))
  }
  banners.replaceChildren(...list)
}

function signedOut (notice) {
  user = null
  justSignedUp = false
  renderAccount()
  renderBanners()
  document.body.dataset.auth = 'signed-out'
  const view = authView({ onSignedIn, config })
  if (notice) view.node.prepend(h('p', { class: 'notice ok', role: 'status' }, notice))
  mount(view)
}

/** opts: {signedUp, passwordReset}; stay: the current view goes on (it asked for the sign-in itself) */
async function onSignedIn (opts = {}) {
  document.body.dataset.auth = 'signed-in'
  flash = { ...opts }
  revoked = opts.revoked ?? null
  if (opts.signedUp) justSignedUp = true
  await refreshUser()
  if (opts.stay) return
  if (location.hash.startsWith('#/confirm') || location.hash.startsWith('#/recovery')) navigate('#/')
  else route()
}

function route () {
  const hash = location.hash
  const ctx = { user, config, navigate, refreshUser, reload, signedOut, onSignedIn }
  // the mailed links' pages work signed in or out; the secret is read once, from link.js
  if (hash.startsWith('#/confirm')) return mount(confirmView({ ...ctx, secret: takeSecret('confirm') }))
  if (hash.startsWith('#/recovery')) return mount(recoveryView({ ...ctx, secret: takeSecret('recovery') }))
  if (hash.startsWith('#/unsubscribe')) return mount(unsubscribeView({ ...ctx, secret: takeSecret('unsubscribe') }))
  takeSecret(null)
  if (!api.signedIn()) return signedOut()
  // #/report/<id>/diffs/<source>/<month>: the report opened on that network's changes (an alert's link)
  const match = /^#\/report\/([^/?#]+)(?:\/diffs\/([a-z]{2})\/(\d{4}-\d{2}))?/.exec(hash)
  if (match) mount(reportView({ ...ctx, reportId: decodeURIComponent(match[1]), focus: match[2] ? { source: match[2], month: match[3] } : null }))
  else if (hash.startsWith('#/alerts')) mount(alertsView())
  else if (hash.startsWith('#/account')) mount(accountView({ ...ctx, paid: hash === '#/account/paid', revoked }))
  else if (hash === '#/admin' || hash.startsWith('#/admin/') || hash.startsWith('#/admin?')) mount(adminView(ctx, hash))
  else mount(homeView({ ...ctx, flash: takeFlash() }))
  const accountLink = document.getElementById('account-link')
  if (hash.startsWith('#/account')) accountLink?.setAttribute('aria-current', 'page')
  else accountLink?.removeAttribute('aria-current')
  const adminLink = document.getElementById('admin-link')
  if (hash.startsWith('#/admin')) adminLink?.setAttribute('aria-current', 'page')
  else adminLink?.removeAttribute('aria-current')
  const bell = document.getElementById('alerts-bell')
  if (hash.startsWith('#/alerts')) bell?.setAttribute('aria-current', 'page')
  else bell?.removeAttribute('aria-current')
  window.scrollTo(0, 0)
  if (hash === '#/account/paid' && !subscribed(user)) waitForSubscription()
}

const secrets = mailedLink ? { [mailedLink.kind]: mailedLink.secret } : {}
function takeSecret (kind) {
  // kept for re-renders of the same page (a sign-in on it), forgotten once another page opens
  for (const k of Object.keys(secrets)) if (k !== kind) delete secrets[k]
  return secrets[kind] ?? null
}

function takeFlash () {
  const f = flash
  flash = {}
  return f
}

// Back from Checkout: the webhook that activates the subscription may land a moment later.
let waiting = false
async function waitForSubscription () {
  if (waiting) return
  waiting = true
  for (let i = 0; i < 15 && location.hash === '#/account/paid' && !subscribed(user); i++) {
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const before = user?.subscription?.status
    await refreshUser()
    if (user?.subscription?.status !== before && location.hash === '#/account/paid') route()
  }
  waiting = false
}

api.whenAuthLost(() => signedOut())
window.addEventListener('hashchange', route)
window.addEventListener('online', renderBanners)
window.addEventListener('offline', renderBanners)

// A reload keeps nothing but the session cookie: it gives a fresh JWT when still signed in.
const [restored, loaded] = await Promise.all([api.refresh(), api.clientConfig()])
config = loaded
if (restored) {
  document.body.dataset.auth = 'signed-in'
  await refreshUser()
  route()
} else if (api.needsSecondFactor() && !mailedLink) {
  // signed in with the password, not yet with the second factor: the code, then the page
  document.body.dataset.auth = 'signed-out'
  mount(secondFactorView({ onSignedIn, signedOut }))
} else {
  document.body.dataset.auth = 'signed-out'
  route()
}
