// Billing actions shared by the home and the account page: Stripe Checkout ("subscribe"), the
// Stripe billing portal ("manage") and promo codes. Stripe's pages open in this tab: the API answers
// their URL and the browser goes there; Checkout comes back to the account page.
import * as api from './api.js'
import { errorText, h } from './dom.js'
import { field, formHelpers, formStatus } from './forms.js'

export const subscribed = (user) => Boolean(user?.subscription && ['active', 'trialing'].includes(user.subscription.status))
export const outOfCredit = (user) => Boolean(user) && !subscribed(user) && user.reportCredits <= 0

function stripeButton (id, label, go) {
  const error = h('p', { class: 'form-error', role: 'alert' })
  const button = h('button', { type: 'button', class: 'button primary', id }, label)
  button.addEventListener('click', async () => {
    error.textContent = ''
    button.disabled = true
    try {
      const { url } = await go()
      location.assign(url)
    } catch (err) {
      error.textContent = errorText(err)
      button.disabled = false
    }
  })
  return h('span', { class: 'stripe-action' }, button, error)
}

export const subscribeButton = (id = 'subscribe') => stripeButton(id, 'Subscribe', () =>
  api.checkout(`${location.origin}/#/account/paid`, `${location.origin}/#/account`))

export const manageButton = (id = 'manage-billing') => stripeButton(id, 'Manage billing', () =>
  api.billingPortal(`${location.origin}/#/account`))

/** the promo-code field; onRedeemed runs after a code added its credits */
export function promoForm (prefix, onRedeemed) {
  const code = h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: false })
  const el = h('form', { class: 'form inline-form', id: `${prefix}-form`, noValidate: true },
    field(prefix, 'promocode', 'Promo code', code),
    h('button', { type: 'submit', class: 'button' }, 'Apply'),
    ...formStatus())
  const f = formHelpers(el, prefix)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    if (!code.value.trim()) return f.showField({ field: 'promocode', message: 'Enter a promo code' })
    f.busy(true, 'Applying…')
    try {
      const result = await api.redeemPromocode(code.value.trim())
      if (result.status !== 'success') return f.showField(result.fieldError)
      code.value = ''
      f.showOk('The code is applied: its credits are on your account.')
      await onRedeemed()
    } catch (err) {
      f.showForm(err.status === 404 ? 'Promo codes cannot be entered here yet.' : errorText(err))
    } finally {
      if (el.isConnected) f.busy(false, 'Apply')
    }
  })
  return el
}

/** the command that makes a promo code on a development server (the README's form) */
export const DEV_PROMO_COMMAND = 'npm run promo -- create WELCOME5 --max-uses 10 --credits 5'

/**
 * What an account with no credit left can do on this server: subscribe where billing is configured,
 * enter a promo code always, and on a development server the command that makes one, so that a
 * developer trying the dashboard is never at a dead end. `prefix` names its ids; `onRedeemed` runs
 * once a code added its credits.
 */
export function noCreditOptions (ctx, prefix, onRedeemed) {
  const billing = ctx.config?.billing !== false
  return [
    h('p', null, billing
      ? 'Generating a report uses one credit. Subscribe for unlimited reports, or enter a promo code.'
      : 'Generating a report uses one credit. Enter a promo code to add credits.'),
    billing ? h('div', { class: 'actions start' }, subscribeButton(`${prefix}-subscribe`)) : null,
    promoForm(`${prefix}-promo`, onRedeemed),
    ctx.config?.development
      ? h('p', { class: 'muted small dev-promo', id: `${prefix}-dev-promo` },
        'Development server: make a code with ', h('code', null, DEV_PROMO_COMMAND), ' and enter it here.')
      : null
  ]
}

/** shown on the home before any draft is made when nothing can be generated */
export function noCreditCard (ctx) {
  return h('section', { class: 'card notice-card', id: 'no-credit', 'aria-labelledby': 'no-credit-title' },
    h('h2', { id: 'no-credit-title' }, 'You have no report credit left'),
    noCreditOptions(ctx, 'no-credit', ctx.refreshUser))
}
