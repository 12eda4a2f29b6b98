// The account page: who you are, credits and subscription, Google link, the security log and its
// notice setting (./security-log.js), password, signed-in sessions, passkeys (./passkeys.js), two-step sign-in (./totp.js), deleting the account, and for programs API
// keys and webhooks (./api-keys.js, ./webhooks.js). Each card loads and fails on its own, so one
// refused request leaves the rest of the page usable.
import * as api from '../api.js'
import { errorText, formatDateTime, h, plural, setTitle, timeAgo } from '../dom.js'
import { field, formHelpers, formStatus, PASSWORD_HINT, passwordInput } from '../forms.js'
import { manageButton, promoForm, subscribeButton, subscribed } from '../billing.js'
import { ProofCancelled, withFreshProof } from '../fresh-proof.js'
import { googleProofButton } from '../google.js'
import { apiKeysCard } from './api-keys.js'
import { passkeysCard } from './passkeys.js'
import { securityLogCard } from './security-log.js'
import { webhooksCard } from './webhooks.js'
import { totpCard } from './totp.js'
import { revokedText } from '../revoked.js'

const STATUS_TEXT = {
  active: 'Active', trialing: 'Trial', past_due: 'Payment overdue', unpaid: 'Unpaid', canceled: 'Canceled',
  incomplete: 'Waiting for payment', incomplete_expired: 'Expired', paused: 'Paused'
}

const row = (label, ...value) => h('div', { class: 'detail' }, h('dt', null, label), h('dd', null, ...value))

function overviewCard (ctx) {
  const { user, config } = ctx
  const sub = user.subscription
  const status = h('span', { class: `status ${subscribed(user) ? 'status-ready' : ''}`, id: 'subscription-status' },
    sub ? STATUS_TEXT[sub.status] ?? sub.status : 'None')
  const billing = config.billing === false
    ? null
    : h('div', { class: 'actions start' }, sub ? manageButton() : null, subscribed(user) ? null : subscribeButton())
  const paidNote = ctx.paid && !subscribed(user)
    ? h('p', { class: 'notice', role: 'status', id: 'payment-pending' }, 'Thank you: your payment is being confirmed. This page updates when Stripe tells us it went through.')
    : null
  return h('section', { class: 'card', id: 'account-overview', 'aria-labelledby': 'account-title' },
    h('h1', { id: 'account-title' }, 'Your account'),
    h('dl', { class: 'details' },
      row('E-mail', h('span', { id: 'account-email' }, user.email)),
      row('Confirmed', h('span', { id: 'account-confirmed' }, user.confirmed ? 'Yes' : 'Not yet: see the banner above')),
      row('Report credits', h('span', { id: 'account-credits' }, plural(user.reportCredits, 'credit'))),
      // a server without billing has no subscription to show, unless one was made before it was turned off
      config.billing === false && !sub ? null : row('Subscription', status, sub?.currentPeriodEnd ? h('span', { class: 'muted small' }, ` until ${formatDateTime(sub.currentPeriodEnd)}`) : null)
    ),
    paidNote,
    billing,
    promoForm('account-promo', ctx.reload))
}

/** null on a server without Google sign-in, unless the account is linked: it may still unlink */
function googleCard (ctx) {
  const { user } = ctx
  if (!ctx.config?.googleClientId && !user.idp.google) return null
  const message = h('p', { class: 'form-error', role: 'alert' })
  const unlink = h('button', { type: 'button', class: 'button', id: 'google-unlink' }, 'Unlink Google')
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  unlink.addEventListener('click', async () => {
    message.textContent = ''
    unlink.disabled = true
    try {
      await withFreshProof(ctx, proofSlot, 'google', api.unlinkGoogle)
      await ctx.reload()
    } catch (err) {
      if (!(err instanceof ProofCancelled)) message.textContent = err.status === 409 ? 'Set a password first ("Forgot your password?" on the sign-in page): without one you could no longer sign in.' : errorText(err)
      unlink.disabled = false
    }
  })
  return h('section', { class: 'card', id: 'account-google' },
    h('h2', null, 'Google sign-in'),
    user.idp.google
      ? [h('p', { id: 'google-state' }, 'Linked: you can sign in with Google.'), unlink, message, proofSlot]
      : h('p', { id: 'google-state' }, 'Not linked. Signing in with Google under the same address links it.'))
}

function passwordCard (ctx) {
  if (!ctx.user.hasPassword) {
    return h('section', { class: 'card', id: 'account-password' }, h('h2', null, 'Password'),
      h('p', null, 'Your account has no password yet (you sign in with Google). Set one with "Forgot your password?" on the sign-in page.'))
  }
  const current = passwordInput('current-password')
  const next = passwordInput()
  const repeat = passwordInput()
  const el = h('form', { class: 'form', id: 'password-form', noValidate: true },
    field('password', 'currentPassword', 'Current password', current),
    field('password', 'newPassword', 'New password', next, PASSWORD_HINT),
    field('password', 'repeat', 'New password again', repeat),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary' }, 'Change the password'))
  const f = formHelpers(el, 'password')
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    if (next.value !== repeat.value) return f.showField({ field: 'repeat', message: 'The two passwords differ' })
    f.busy(true, 'Changing…')
    try {
      const result = await api.changePassword(current.value, next.value)
      // the API names the field "password" for both: the current one refused, or the new one weak
      if (result.status !== 'success') return f.showField(result.fieldError, { password: /current password/i.test(result.fieldError.message) ? 'currentPassword' : 'newPassword' })
      for (const input of [current, next, repeat]) input.value = ''
      f.showOk('Your password is changed. Your other sessions were signed out.')
    } catch (err) {
      f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Change the password')
    }
  })
  return h('section', { class: 'card', id: 'account-password' }, h('h2', null, 'Change the password'), el)
}

function sessionsCard (ctx) {
  const list = h('ul', { class: 'session-list', id: 'session-list', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading your sessions…'))
  const message = h('p', { class: 'form-error', role: 'alert' })
  const others = h('button', { type: 'button', class: 'button', id: 'sign-out-others', hidden: true }, 'Sign out everywhere else')
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const act = async (button, fn) => {
    message.textContent = ''
    button.disabled = true
    try {
      await withFreshProof(ctx, proofSlot, 'sessions', fn)
      await load()
    } catch (err) {
      if (!(err instanceof ProofCancelled)) message.textContent = errorText(err)
      button.disabled = false
    }
  }
  const item = (s) => {
    // the device as the server names it ("Chrome on Linux"); the raw header stays in the tooltip
    const name = s.device || s.userAgent || 'Unknown browser'
    const end = s.current ? null : h('button', { type: 'button', class: 'button small ghost', 'aria-label': `Sign out the session on ${name}` }, 'Sign out')
    end?.addEventListener('click', () => act(end, () => api.endSession(s.id)))
    return h('li', { class: 'session', dataset: { current: String(s.current) } },
      h('span', { class: 'session-main' },
        h('span', { class: 'session-agent', title: s.userAgent ?? undefined },
          h('span', { class: 'session-device' }, s.current ? name : `${name}, last used ${timeAgo(s.lastUsedAt)}`),
          s.current ? h('span', { class: 'badge current' }, 'This browser') : null),
        h('span', { class: 'muted small' }, [s.ipPrefix ? `from ${s.ipPrefix}` : null, `signed in ${formatDateTime(s.createdAt)}`].filter(Boolean).join(' · '))),
      end)
  }
  const load = async () => {
    try {
      const { items } = await api.sessions()
      list.removeAttribute('aria-busy')
      list.replaceChildren(...items.map(item))
      if (!items.length) list.append(h('li', { class: 'muted empty' }, 'No signed-in session.'))
      others.hidden = !items.some((s) => !s.current)
      others.disabled = false
    } catch (err) {
      list.removeAttribute('aria-busy')
      list.replaceChildren(h('li', { class: 'muted empty' }, errorText(err)))
    }
  }
  others.addEventListener('click', () => act(others, api.endOtherSessions))
  load()
  return h('section', { class: 'card', id: 'account-sessions' },
    h('h2', null, 'Where you are signed in'), list, message, proofSlot, h('div', { class: 'actions start' }, others))
}

/**
 * An account without a password confirms its deletion with its linked Google account, where this
 * server offers Google: a credential carrying a nonce the server issued (src/services/accounts/owner-proof.ts).
 * Google's button is armed on the click, so that the nonce is asked for then and this is the
 * page's one Google prompt (GIS keeps one callback and one nonce per page).
 */
function googleDeletion (ctx) {
  const clientId = ctx.config?.googleClientId
  if (!clientId || !ctx.user.idp?.google) {
    return h('p', { class: 'muted' }, 'Your account has no password: set one first (Forgot your password?), then confirm with it here.')
  }
  const start = h('button', { type: 'button', class: 'button danger', id: 'delete-with-google' }, 'Delete my account')
  const slot = h('div', { hidden: true })
  start.addEventListener('click', () => {
    if (!confirm('Delete your account and all its reports? This cannot be undone.')) return
    start.hidden = true
    const button = h('div', { class: 'google-button', id: 'delete-google' })
    const message = h('p', { class: 'form-error', id: 'delete-google-error', role: 'alert' })
    slot.replaceChildren(h('p', { class: 'small' }, 'To confirm, continue with the Google account linked to yours.'), button, message)
    slot.hidden = false
    googleProofButton(clientId, button, async (response) => {
      message.textContent = ''
      try {
        await api.deleteAccount({ credential: response.credential, clientId: response.clientId ?? clientId })
        ctx.signedOut('Your account is deleted.')
        return true
      } catch (err) {
        message.textContent = errorText(err)
        return false
      }
    }, 'Google sign-in could not load. Check your connection and try again.')
  })
  return h('div', null, start, slot)
}

function deleteCard (ctx) {
  const intro = h('p', null, 'Deleting the account removes your reports and signs you out everywhere. It cannot be undone.')
  if (!ctx.user.hasPassword) {
    return h('section', { class: 'card danger-zone', id: 'account-delete' }, h('h2', null, 'Delete the account'),
      h('div', { class: 'form', id: 'delete-form' }, intro, googleDeletion(ctx)))
  }
  const password = passwordInput('current-password')
  const el = h('form', { class: 'form', id: 'delete-form', noValidate: true },
    intro,
    field('delete', 'password', 'Your password, to confirm', password),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button danger' }, 'Delete my account'))
  const f = formHelpers(el, 'delete')
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    if (!confirm('Delete your account and all its reports? This cannot be undone.')) return
    f.busy(true, 'Deleting…')
    try {
      await api.deleteAccount({ password: password.value })
      ctx.signedOut('Your account is deleted.')
    } catch (err) {
      // 403: the password was refused (the API's message says why)
      if (err.status === 403) f.showField({ field: 'password', message: errorText(err) })
      else f.showForm(errorText(err))
      f.busy(false, 'Delete my account')
    }
  })
  return h('section', { class: 'card danger-zone', id: 'account-delete' }, h('h2', null, 'Delete the account'), el)
}

export function accountView (ctx) {
  setTitle('Your account')
  if (!ctx.user) {
    return { node: h('section', { class: 'card', id: 'account-overview' }, h('h1', null, 'Your account'), h('p', { class: 'form-error', role: 'alert' }, 'Your account could not be loaded. Reload the page to try again.')) }
  }
  return {
    node: h('div', { class: 'account-page' },
      h('a', { href: '#/', class: 'back' }, '← Reports'),
      // what this page load's password reset revoked (public/revoked.js)
      ctx.revoked ? h('p', { class: 'notice', role: 'status', id: 'account-revoked' }, 'When your password was reset: ', revokedText(ctx.revoked)) : null,
      h('div', { class: 'account-grid' },
        h('div', { class: 'column' }, overviewCard(ctx), googleCard(ctx), securityLogCard(ctx)),
        h('div', { class: 'column' }, sessionsCard(ctx), passkeysCard(ctx), passwordCard(ctx), totpCard(ctx))),
      h('h2', { class: 'subhead programs-head' }, 'For your programs'),
      h('div', { class: 'account-grid' },
        h('div', { class: 'column' }, apiKeysCard(ctx)),
        h('div', { class: 'column' }, webhooksCard(ctx))),
      // the one thing that cannot be undone comes last, after everything else the page offers
      deleteCard(ctx))
  }
}
