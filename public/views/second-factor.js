// The second step of a sign-in (docs/decisions/accounts.md, Second factors): an account with an
// authenticator app or a passkey answers the password with mfaRequired, and the session waits at
// level 1 for a code of the app, one of the recovery codes or one of its passkeys. Shown after the
// password, and on a reload of a page whose session still waits (its refresh answered "second
// factor required"). A wrong code counts like a wrong password; once locked, the form says how long
// to wait.
import * as api from '../api.js'
import { errorText, h, retryWhen, setTitle } from '../dom.js'
import { field, formHelpers, formStatus } from '../forms.js'
import { cancelled, passkeyErrorText, passkeysSupported, verifyWithPasskey } from '../passkeys.js'

const P = 'second-factor'

/** the code form; onVerified once the session is at level 2, onCancel to go back to the password */
export function secondFactorForm (onVerified, onCancel) {
  const code = h('input', { type: 'text', autocomplete: 'one-time-code', inputMode: 'text', required: true, maxLength: 64, autocapitalize: 'off', spellcheck: false })
  const cancel = h('button', { type: 'button', class: 'link', id: `${P}-cancel` }, '← Sign in with another account')
  // a passkey of the account is a second factor too (docs/decisions/accounts.md, Passkeys): offered
  // where the browser makes passkeys and the account's info says it has one; not where that cannot
  // be read
  const passkey = passkeysSupported() ? h('button', { type: 'button', class: 'button wide', id: `${P}-passkey`, hidden: true }, 'Use a passkey instead') : null
  if (passkey) api.pendingAccountInfo().then((me) => { passkey.hidden = !(me?.mfa?.passkeys > 0) })
  cancel.addEventListener('click', onCancel)
  const el = h('form', { class: 'form', id: `${P}-form`, noValidate: true },
    h('h2', { class: 'form-title' }, 'Two-step sign-in'),
    h('p', { class: 'muted' }, 'Enter the 6-digit code your authenticator app shows for this account. Lost your phone? Enter one of your recovery codes instead.'),
    field(P, 'code', 'Code', code),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary wide' }, 'Verify'),
    passkey,
    h('p', { class: 'form-links' }, cancel))
  const f = formHelpers(el, P)
  passkey?.addEventListener('click', async () => {
    f.clear()
    passkey.disabled = true
    try {
      const result = await verifyWithPasskey()
      if (result.status === 'success') return onVerified()
      f.showForm(result.fieldError.message)
    } catch (err) {
      if (!cancelled(err)) f.showForm(passkeyErrorText(err, errorText))
    } finally {
      passkey.disabled = false
    }
  })
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    const typed = code.value.trim()
    if (!typed) return f.showField({ field: 'code', message: 'Enter the code' })
    f.busy(true, 'Checking…')
    try {
      const result = await api.verifySecondFactor({ code: typed })
      if (result.status === 'success') return onVerified()
      code.value = ''
      f.showField(result.fieldError)
    } catch (err) {
      f.showForm(err.status === 429 ? `Too many wrong codes: try again ${retryWhen(err.retryAfter)}.` : errorText(err))
    } finally {
      f.busy(false, 'Verify')
    }
  })
  queueMicrotask(() => code.focus())
  return el
}

/** the page of a session that waits for its second factor (a reload after the password) */
export function secondFactorView ({ onSignedIn, signedOut }) {
  setTitle('Two-step sign-in')
  return { node: h('section', { class: 'auth' }, h('div', { class: 'card auth-card' }, secondFactorForm(() => onSignedIn({}), () => signedOut()))) }
}
