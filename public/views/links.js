// The pages of the mailed links. link.js has already taken the secret out of the address bar; it is
// handed here in memory, and a reload of the page (which no longer has it) asks for the mail's link.
import * as api from '../api.js'
import { revokedText } from '../revoked.js'
import { errorText, h, setTitle } from '../dom.js'
import { field, formHelpers, formStatus, PASSWORD_HINT, passwordInput } from '../forms.js'
import { signInForm } from './auth.js'
import { secondFactorForm } from './second-factor.js'

const card = (id, ...children) => h('section', { class: 'card narrow link-card', id }, ...children)
const loading = (text) => h('p', { class: 'muted loading', role: 'status' }, text)

function noSecret (what) {
  return [
    h('h1', null, what),
    h('p', null, 'This page opens from the link in your mail. Open that link again (the page forgets it once used or reloaded).'),
    h('p', null, h('a', { class: 'button', href: '#/' }, 'Go to the dashboard'))
  ]
}

/** "send a new link": needs the account, so a signed-out person signs in on the spot first */
function resendBlock (ctx) {
  const slot = h('div', { class: 'resend', id: 'resend-block' })
  const status = h('p', { class: 'form-ok', role: 'status', id: 'resend-status' })
  const error = h('p', { class: 'form-error', role: 'alert' })
  const send = async () => {
    error.textContent = ''
    try {
      await api.resendConfirmation()
      slot.replaceChildren(status)
      status.textContent = 'A new confirmation link is on its way to your inbox.'
      await ctx.refreshUser()
    } catch (err) {
      error.textContent = errorText(err)
    }
  }
  const button = h('button', { type: 'button', class: 'button primary', id: 'resend-confirmation' }, 'Send a new link')
  button.addEventListener('click', async () => {
    if (api.signedIn()) return send()
    slot.replaceChildren(h('p', null, 'Sign in to get a new link for your account.'),
      signInForm(async () => { await ctx.onSignedIn({ stay: true }); await send() }, { prefix: 'resend-signin' }))
    slot.querySelector('input')?.focus()
  })
  slot.append(button, error)
  return slot
}

export function confirmView (ctx) {
  const node = card('confirm-view', loading('Confirming your e-mail address…'))
  setTitle('Confirm your e-mail address')
  const done = (state) => {
    node.dataset.state = state
    if (state === 'invalid') {
      node.replaceChildren(
        h('h1', null, 'This link is invalid or has expired'),
        h('p', null, 'Confirmation links work for 7 days. Ask for a new one:'),
        resendBlock(ctx))
      return
    }
    node.replaceChildren(
      h('h1', null, state === 'already' ? 'Your e-mail address was already confirmed' : 'Your e-mail address is confirmed'),
      h('p', null, 'Thank you. Nothing else to do: your account is complete.'),
      h('p', null, h('a', { class: 'button primary', href: '#/', id: 'confirm-continue' }, api.signedIn() ? 'Go to the dashboard' : 'Sign in')))
  }
  const run = async () => {
    if (!ctx.secret) return node.replaceChildren(...noSecret('Confirm your e-mail address'))
    // signed in and already confirmed: the link has nothing left to do, and the answer says which
    if (ctx.user?.confirmed) return done('already')
    try {
      const outcome = await api.confirmEmail(ctx.secret)
      if (outcome === 'confirmed' && api.signedIn()) await ctx.refreshUser()
      done(outcome)
    } catch (err) {
      node.dataset.state = 'error'
      node.replaceChildren(h('h1', null, 'Confirm your e-mail address'), h('p', { class: 'form-error', role: 'alert' }, errorText(err)),
        h('button', { type: 'button', class: 'button', onClick: run }, 'Try again'))
    }
  }
  run()
  return { node }
}

/**
 * Recovery: check the link, ask for the new password twice and the account's e-mail (the link does
 * not say whose it is, and the sign-in that follows needs it), set the password, sign in with it.
 */
export function recoveryView (ctx) {
  const node = card('recovery-view', loading('Checking your link…'))
  setTitle('Choose a new password')
  const invalid = (message) => {
    node.dataset.state = 'invalid'
    node.replaceChildren(h('h1', null, 'This link cannot be used'), h('p', null, message),
      h('p', null, 'Ask for a new one from the sign-in page ("Forgot your password?").'),
      h('p', null, h('a', { class: 'button primary', href: '#/', id: 'recovery-restart' }, 'Go to sign in')))
  }
  const askSecondFactor = (revoked) => {
    setTitle('Two-step sign-in')
    const back = () => node.replaceChildren(h('h1', null, 'Your password is set'), signInForm(ctx.onSignedIn, { prefix: 'signin' }))
    node.dataset.state = 'second-factor'
    node.replaceChildren(h('p', { class: 'notice ok', role: 'status', id: 'recovery-second-factor-notice' }, 'Your new password is set. Your account has a second factor: finish signing in with it.'),
      revoked ? h('p', { class: 'notice', role: 'status', id: 'password-reset-revoked' }, revokedText(revoked)) : null,
      secondFactorForm(() => ctx.onSignedIn({ passwordReset: true, revoked }), back))
  }
  const form = () => {
    const email = h('input', { type: 'email', autocomplete: 'username', required: true, inputMode: 'email', value: ctx.user?.email ?? '' })
    const password = passwordInput()
    const repeat = passwordInput()
    const keep = h('input', { type: 'checkbox', id: 'recovery-keep-api-keys', 'aria-describedby': 'recovery-keep-api-keys-hint' })
    const el = h('form', { class: 'form', id: 'recovery-form', noValidate: true },
      field('recovery', 'email', 'Your e-mail address', email, 'The address this link was sent to: you are signed in with it once the password is set.'),
      field('recovery', 'password', 'New password', password, PASSWORD_HINT),
      field('recovery', 'repeat', 'New password again', repeat),
      // unticked: whoever knew the old password may have made keys and endpoints
      // (docs/decisions/accounts.md, Recovery cuts off an intruder)
      h('label', { class: 'check', for: 'recovery-keep-api-keys' }, keep, 'Keep my API keys and webhook endpoints working'),
      h('p', { class: 'muted small', id: 'recovery-keep-api-keys-hint' },
        'Left unticked, every API key of the account is revoked and every webhook endpoint disabled: you make new ones on the account page.'),
      ...formStatus(),
      h('button', { type: 'submit', class: 'button primary wide' }, 'Set the password and sign in'))
    const f = formHelpers(el, 'recovery')
    el.addEventListener('submit', async (event) => {
      event.preventDefault()
      f.clear()
      if (!email.value.trim()) return f.showField({ field: 'email', message: 'Enter your e-mail address' })
      if (password.value !== repeat.value) return f.showField({ field: 'repeat', message: 'The two passwords differ' })
      f.busy(true, 'Setting the password…')
      try {
        const result = await api.resetPassword(ctx.secret, password.value, keep.checked)
        if (result.status !== 'success') return f.showField(result.fieldError)
        // the password is set and every session of the account ended: sign in with the new one
        const signed = await api.signIn(email.value.trim(), password.value, true)
        // an account with a second factor: the password alone signs in only to the code step, as the sign-in form does
        if (signed.status === 'success' && signed.mfaRequired) return askSecondFactor(result.revoked ?? null)
        if (signed.status === 'success') return ctx.onSignedIn({ passwordReset: true, revoked: result.revoked ?? null })
        node.replaceChildren(h('h1', null, 'Your password is set'),
          result.revoked ? h('p', { class: 'notice', role: 'status', id: 'password-reset-revoked' }, revokedText(result.revoked)) : null,
          h('p', { class: 'form-error', role: 'alert' }, 'Signing in with it failed: check the e-mail address and sign in below.'),
          signInForm(ctx.onSignedIn, { prefix: 'signin' }))
      } catch (err) {
        f.showForm(errorText(err))
      } finally {
        if (el.isConnected) f.busy(false, 'Set the password and sign in')
      }
    })
    return el
  }
  const run = async () => {
    if (!ctx.secret) return node.replaceChildren(...noSecret('Choose a new password'))
    try {
      const check = await api.checkRecovery(ctx.secret)
      if (check.status !== 'success') return invalid(check.fieldError.message)
      node.dataset.state = 'ready'
      node.replaceChildren(h('h1', null, 'Choose a new password'),
        h('p', { class: 'muted' }, 'Setting it signs you out everywhere else.'), form())
      node.querySelector('input')?.focus()
    } catch (err) {
      node.dataset.state = 'error'
      node.replaceChildren(h('h1', null, 'Choose a new password'), h('p', { class: 'form-error', role: 'alert' }, errorText(err)),
        h('button', { type: 'button', class: 'button', onClick: run }, 'Try again'))
    }
  }
  run()
  return { node }
}

const UNSUBSCRIBE_OUTCOMES = {
  unsubscribed: ['No more digest mails', 'You will get no more alert digest mails. Your alerts stay on the dashboard, and the account page can turn the digest back on.'],
  invalid: ['This link is not valid', 'Use the link of a digest mail as it came, or turn the digest off on your account page.'],
  expired: ['This link no longer works', 'An unsubscribe link works for 90 days, and only while its account exists. Turn the digest off on your account page.']
}

/**
 * The alert digest's unsubscribe link: it asks first, as opening a link must change nothing (mail
 * scanners open links); the button stops the digest, signed in or not.
 */
export function unsubscribeView (ctx) {
  const node = card('unsubscribe-view')
  setTitle('Stop the alert digest')
  if (!ctx.secret) {
    node.replaceChildren(...noSecret('Stop the alert digest'))
    return { node }
  }
  const error = h('p', { class: 'form-error', role: 'alert' })
  const button = h('button', { type: 'button', class: 'button primary', id: 'unsubscribe-confirm' }, 'Stop the digest mails')
  button.addEventListener('click', async () => {
    error.textContent = ''
    button.disabled = true
    try {
      const outcome = await api.unsubscribeDigest(ctx.secret)
      node.dataset.state = outcome
      const [title, text] = UNSUBSCRIBE_OUTCOMES[outcome]
      node.replaceChildren(
        h('h1', null, title),
        h('p', null, text),
        h('p', null, h('a', { class: 'button', href: '#/' }, 'Go to the dashboard')))
    } catch (err) {
      error.textContent = errorText(err)
      button.disabled = false
    }
  })
  node.replaceChildren(
    h('h1', null, 'Stop the alert digest?'),
    h('p', null, 'You get a digest mail at most once a day while your watched reports change. Stop it?'),
    h('p', null, button), error)
  return { node }
}
