// Fresh authentication in the page (docs/decisions/dashboard.md, Dashboard): a sensitive call (a
// new API key, a new webhook or a new webhook secret, signing other sessions out, unlinking Google)
// is refused 403 "re-authentication required" when the session last proved its owner more than
// STEP_UP_MAX_AGE_S ago. The card then asks for the password, or for Google on an account that has
// only Google, in a small form of its own, and offers a passkey where the account has one; POST
// /auth/reauthenticate answers a new JWT (api.js keeps it) and the call is made once more.
import * as api from './api.js'
import { errorText, fill, h } from './dom.js'
import { field, formHelpers, formStatus, passwordInput } from './forms.js'
import { googleProofButton } from './google.js'
import { cancelled, passkeyErrorText, passkeysSupported, proveWithPasskey } from './passkeys.js'

/** the error a call throws when the person closes the prompt instead of proving: nothing to report */
export class ProofCancelled extends Error {}

/** whether a refusal asks for a proof by the second factor being removed, the account's last (403 with the API's message) */
export const needsFactorProof = (err) => err?.status === 403 && /^removing the last second factor/i.test(err?.body?.message ?? '')

/** whether a refusal asks for a fresh proof (403 with the API's message) */
export const needsProof = (err) => err?.status === 403 && /re-authentication required/i.test(err?.body?.message ?? '')

/**
 * `call()`, and when it is refused for want of a fresh proof, the prompt in `slot` (an element of the
 * card, `prefix` naming its ids) and then `call()` once more. Rejects with ProofCancelled when the
 * person cancels, with the call's error otherwise.
 */
export async function withFreshProof (ctx, slot, prefix, call) {
  try {
    return await call()
  } catch (err) {
    if (!needsProof(err)) throw err
  }
  await proveAgain(ctx, slot, prefix)
  return await call()
}

/** the cancel of the prompt open in a slot: a second call there cancels the first one's */
const open = new WeakMap()

/** the inline prompt; resolves once the session has proved its owner again */
function proveAgain (ctx, slot, prefix) {
  open.get(slot)?.()
  return new Promise((resolve, reject) => {
    const back = document.activeElement
    const close = () => {
      open.delete(slot)
      fill(slot)
      slot.hidden = true
      if (back instanceof HTMLElement && back.isConnected) back.focus()
    }
    const done = () => { close(); resolve() }
    const cancel = () => { close(); reject(new ProofCancelled('not proved')) }
    open.set(slot, cancel)
    const cancelButton = h('button', { type: 'button', class: 'button ghost', id: `${prefix}-proof-cancel` }, 'Cancel')
    cancelButton.addEventListener('click', cancel)
    const body = ctx.user?.hasPassword
      ? passwordProof(prefix, done, cancelButton)
      : googleProof(ctx, prefix, done, cancelButton)
    const box = h('div', { class: 'proof', id: `${prefix}-proof`, role: 'group', 'aria-labelledby': `${prefix}-proof-title` },
      h('p', { class: 'proof-title', id: `${prefix}-proof-title` }, 'Confirm it is you'),
      h('p', { class: 'small' }, 'This needs a recent sign-in. Prove it is you once more, and it goes on.'),
      ctx.user?.mfa?.passkeys > 0 && passkeysSupported() ? passkeyProof(prefix, done) : null,
      body)
    box.addEventListener('keydown', (event) => { if (event.key === 'Escape') cancel() })
    fill(slot, box)
    slot.hidden = false
    ;(box.querySelector('input') ?? cancelButton).focus()
  })
}

/** an account with a passkey proves itself with one, through the browser's prompt */
function passkeyProof (prefix, done) {
  const message = h('p', { class: 'form-error', id: `${prefix}-proof-passkey-error`, role: 'alert' })
  const button = h('button', { type: 'button', class: 'button', id: `${prefix}-proof-passkey` }, 'Use a passkey')
  button.addEventListener('click', async () => {
    message.textContent = ''
    button.disabled = true
    try {
      await proveWithPasskey()
      done()
    } catch (err) {
      if (!cancelled(err)) message.textContent = passkeyErrorText(err, errorText)
      button.disabled = false
    }
  })
  return h('div', { class: 'actions start' }, button, message)
}

function passwordProof (prefix, done, cancelButton) {
  const password = passwordInput('current-password')
  const el = h('form', { class: 'form', id: `${prefix}-proof-form`, noValidate: true },
    field(`${prefix}-proof`, 'password', 'Your password', password),
    ...formStatus(),
    h('div', { class: 'actions start' }, h('button', { type: 'submit', class: 'button primary' }, 'Confirm'), cancelButton))
  const f = formHelpers(el, `${prefix}-proof`)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    if (!password.value) return f.showField({ field: 'password', message: 'Enter your password' })
    f.busy(true, 'Checking…')
    try {
      await api.reauthenticate({ password: password.value })
      done()
    } catch (err) {
      // 403: the password was refused (the API's message says why)
      if (err.status === 403) f.showField({ field: 'password', message: errorText(err) })
      else f.showForm(errorText(err))
      f.busy(false, 'Confirm')
    }
  })
  return el
}

/** an account without a password proves itself with Google, where this server offers Google sign-in */
function googleProof (ctx, prefix, done, cancelButton) {
  const clientId = ctx.config?.googleClientId
  if (!clientId || !ctx.user?.idp?.google) {
    return [h('p', { class: 'form-error', role: 'alert' }, 'Your account has no password: set one first with "Forgot your password?" on the sign-in page, then try again.'),
      h('div', { class: 'actions start' }, cancelButton)]
  }
  const button = h('div', { class: 'google-button', id: `${prefix}-proof-google` })
  const message = h('p', { class: 'form-error', id: `${prefix}-proof-google-error`, role: 'alert' })
  // the credential must carry a nonce the server issued and be minutes old at most
  // (docs/decisions/accounts.md, Fresh authentication)
  googleProofButton(clientId, button, async (response) => {
    message.textContent = ''
    try {
      await api.reauthenticate({ credential: response.credential, clientId: response.clientId ?? clientId })
      done()
      return true
    } catch (err) {
      message.textContent = errorText(err)
      return false
    }
  }, 'Google sign-in could not load. Check your connection and try again.')
  return [h('p', { class: 'small' }, 'Continue with the Google account linked to yours.'), button, message, h('div', { class: 'actions start' }, cancelButton)]
}
