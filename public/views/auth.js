// Sign in, create an account, forgot password, and Google sign-in when the deployment offers it.
import * as api from '../api.js'
import { errorText, h, setTitle } from '../dom.js'
import { field, formHelpers, formStatus, PASSWORD_HINT, passwordInput } from '../forms.js'
import { googleSignIn } from '../google.js'
import { cancelled, offerPasskeyAutofill, passkeysSupported, signInWithPasskey, stopPasskeyAutofill } from '../passkeys.js'
import { secondFactorForm } from './second-factor.js'

// CAPTCHA: in development the server runs with CAPTCHA=off and accepts any non-empty token, so the
// page sends this fixed string. A production deployment embeds the provider's widget (Turnstile,
// hCaptcha, reCAPTCHA) in the sign-up form and sends the token it produces instead.
const DEV_CAPTCHA_TOKEN = 'dashboard'

// An attribution marker from the landing URL (?acquisition_code=…) is stored at sign-up.
const acquisitionCode = new URLSearchParams(location.search).get('acquisition_code') || undefined

/** the sign-in form; also used on the pages that need a sign-in first */
export function signInForm (onSignedIn, { onForgot, prefix = 'signin', email: knownEmail = '' } = {}) {
  // "webauthn": the browser may offer the account's passkeys in this field's autofill
  const email = h('input', { type: 'email', autocomplete: 'username webauthn', required: true, inputMode: 'email', value: knownEmail })
  const password = passwordInput('current-password')
  const remember = h('input', { type: 'checkbox', id: `${prefix}-remember`, checked: true })
  const passkey = passkeysSupported()
    ? h('button', { type: 'button', class: 'button wide', id: `${prefix}-passkey` }, 'Sign in with a passkey')
    : null
  const el = h('form', { class: 'form', id: `${prefix}-form`, noValidate: true },
    field(prefix, 'email', 'E-mail', email),
    field(prefix, 'password', 'Password', password),
    h('label', { class: 'check', for: `${prefix}-remember` }, remember, 'Keep me signed in on this device'),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary wide' }, 'Sign in'),
    passkey,
    onForgot ? h('p', { class: 'form-links' }, h('button', { type: 'button', class: 'link', id: 'forgot-link', onClick: onForgot }, 'Forgot your password?')) : null
  )
  const f = formHelpers(el, prefix)
  if (passkey) {
    const failed = (err) => f.showForm(err.status === 403 ? 'This passkey was not accepted. Try another one, or your password.' : errorText(err))
    passkey.addEventListener('click', async () => {
      f.clear()
      passkey.disabled = true
      try {
        const result = await signInWithPasskey(remember.checked)
        if (result.status === 'success') return onSignedIn({})
      } catch (err) {
        if (!cancelled(err)) failed(err)
      } finally {
        passkey.disabled = false
      }
    })
    offerPasskeyAutofill(el, () => onSignedIn({}), failed)
  }
  // the account has a second factor: the code form takes the password form's place until verified
  const askSecondFactor = () => {
    password.value = ''
    const second = secondFactorForm(() => onSignedIn({}), () => { second.replaceWith(el); password.focus() })
    el.replaceWith(second)
  }
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    f.busy(true, 'Signing in…')
    try {
      const result = await api.signIn(email.value.trim(), password.value, remember.checked)
      if (result.status === 'success') {
        stopPasskeyAutofill()
        return result.mfaRequired ? askSecondFactor() : onSignedIn({})
      }
      f.showField(result.fieldError)
    } catch (err) {
      f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Sign in')
    }
  })
  return el
}

function signUpForm (onSignedIn) {
  const email = h('input', { type: 'email', autocomplete: 'email', required: true, inputMode: 'email' })
  const password = passwordInput()
  const promocode = h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'off' })
  const el = h('form', { class: 'form', id: 'signup-form', noValidate: true },
    field('signup', 'email', 'E-mail', email),
    field('signup', 'password', 'Password', password, PASSWORD_HINT),
    field('signup', 'promocode', 'Promo code (optional)', promocode),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary wide' }, 'Create account')
  )
  const f = formHelpers(el, 'signup')
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    f.busy(true, 'Creating account…')
    try {
      const body = { email: email.value.trim(), password: password.value, token: DEV_CAPTCHA_TOKEN }
      if (promocode.value.trim()) body.promocode = promocode.value.trim()
      if (acquisitionCode) body.acquisition_code = acquisitionCode
      const result = await api.signUp(body)
      if (result.status !== 'success') return f.showField(result.fieldError)
      // sign-up never signs in (spec 5.4): sign in with the same credentials at once, then the home
      // opens on "check your inbox" for the confirmation mail
      const signed = await api.signIn(body.email, body.password, true)
      if (signed.status === 'success') return onSignedIn({ signedUp: true })
      f.showField(signed.fieldError)
    } catch (err) {
      f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Create account')
    }
  })
  return el
}

/** forgot password: POST /auth/recovery answers the same whether or not the address has an account */
function forgotForm (onBack) {
  const email = h('input', { type: 'email', autocomplete: 'email', required: true, inputMode: 'email' })
  const sent = h('div', { class: 'notice ok', id: 'forgot-sent', role: 'status', hidden: true })
  const el = h('form', { class: 'form', id: 'forgot-form', noValidate: true },
    h('h2', { class: 'form-title' }, 'Forgot your password?'),
    h('p', { class: 'muted' }, 'Enter the e-mail address of your account. We mail it a link to choose a new password; the link works once, for one hour.'),
    field('forgot', 'email', 'E-mail', email),
    ...formStatus(),
    sent,
    h('button', { type: 'submit', class: 'button primary wide' }, 'Send the link'),
    h('p', { class: 'form-links' }, h('button', { type: 'button', class: 'link', onClick: onBack }, '← Back to sign in'))
  )
  const f = formHelpers(el, 'forgot')
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    sent.hidden = true
    f.busy(true, 'Sending…')
    try {
      const result = await api.requestRecovery(email.value.trim())
      if (result.status !== 'success') return f.showField(result.fieldError)
      sent.replaceChildren(
        h('strong', null, 'Check your inbox. '),
        `If an account uses ${email.value.trim()}, a link to choose a new password is on its way. ` +
        'This page answers the same whatever the address, so it tells no one which addresses have an account.')
      sent.hidden = false
    } catch (err) {
      f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Send the link')
    }
  })
  return el
}

export function authView ({ onSignedIn, config }) {
  const tabs = {}
  const panel = h('div', { class: 'auth-panel' })
  const forms = {}
  const show = (which) => {
    for (const [name, tab] of Object.entries(tabs)) tab.setAttribute('aria-selected', String(name === which))
    forms[which] ??= which === 'signin'
      ? signInForm(onSignedIn, { onForgot: () => show('forgot') })
      : which === 'signup' ? signUpForm(onSignedIn) : forgotForm(() => show('signin'))
    panel.replaceChildren(forms[which])
    setTitle({ signin: 'Sign in', signup: 'Create an account', forgot: 'Forgot your password' }[which])
    forms[which].querySelector('input')?.focus()
  }
  tabs.signin = h('button', { type: 'button', role: 'tab', id: 'tab-signin', class: 'tab', onClick: () => show('signin') }, 'Sign in')
  tabs.signup = h('button', { type: 'button', role: 'tab', id: 'tab-signup', class: 'tab', onClick: () => show('signup') }, 'Create account')
  const google = config?.googleClientId ? googleSignIn(config.googleClientId, onSignedIn) : null
  const node = h('section', { class: 'auth' },
    h('div', { class: 'auth-intro' },
      h('h1', null, 'Understand a profile at a glance'),
      h('p', null, 'Search a social-network profile, generate a report and see its interests, red flags, friends and how its interests changed month by month.')
    ),
    h('div', { class: 'card auth-card' },
      h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Sign in or create an account' }, tabs.signin, tabs.signup),
      panel,
      google
    )
  )
  show('signin')
  return { node }
}
