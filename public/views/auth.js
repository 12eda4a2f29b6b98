// Sign in and sign up. Server refusals arrive as {status:"error", fieldError:{field, message}} and
// are shown under the field they name.
import * as api from '../api.js'
import { errorText, h } from '../dom.js'

// CAPTCHA: in development the server runs with CAPTCHA=off and accepts any non-empty token, so the
// page sends this fixed string. A production deployment embeds the provider's widget (Turnstile,
// hCaptcha, reCAPTCHA) in the sign-up form and sends the token it produces instead.
const DEV_CAPTCHA_TOKEN = 'dashboard'

// An attribution marker from the landing URL (?acquisition_code=…) is stored at sign-up.
const acquisitionCode = new URLSearchParams(location.search).get('acquisition_code') || undefined

function field (form, name, label, input, hint) {
  const id = `${form}-${name}`
  const errorId = `${id}-error`
  input.id = id
  input.name = name
  input.setAttribute('aria-describedby', errorId)
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint' }, hint) : null,
    h('p', { class: 'field-error', id: errorId, role: 'alert' })
  )
}

function formHelpers (formEl, prefix) {
  const clear = () => {
    for (const el of formEl.querySelectorAll('.field-error, .form-error')) el.textContent = ''
    for (const el of formEl.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid')
  }
  const showField = (fieldError) => {
    const input = formEl.querySelector(`#${prefix}-${fieldError.field}`)
    if (!input) return showForm(fieldError.message)
    input.setAttribute('aria-invalid', 'true')
    formEl.querySelector(`#${prefix}-${fieldError.field}-error`).textContent = fieldError.message
    input.focus()
  }
  const showForm = (message) => { formEl.querySelector('.form-error').textContent = message }
  const busy = (on, label) => {
    const button = formEl.querySelector('button[type=submit]')
    button.disabled = on
    button.textContent = label
  }
  return { clear, showField, showForm, busy }
}

function signInForm (onSignedIn) {
  const email = h('input', { type: 'email', autocomplete: 'username', required: true, inputMode: 'email' })
  const password = h('input', { type: 'password', autocomplete: 'current-password', required: true })
  const remember = h('input', { type: 'checkbox', id: 'signin-remember', checked: true })
  const el = h('form', { class: 'form', id: 'signin-form', noValidate: true },
    field('signin', 'email', 'E-mail', email),
    field('signin', 'password', 'Password', password),
    h('label', { class: 'check', for: 'signin-remember' }, remember, 'Keep me signed in on this device'),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'button primary wide' }, 'Sign in')
  )
  const f = formHelpers(el, 'signin')
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    f.busy(true, 'Signing in…')
    try {
      const result = await api.signIn(email.value.trim(), password.value, remember.checked)
      if (result.status === 'success') return onSignedIn()
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
  const password = h('input', { type: 'password', autocomplete: 'new-password', required: true })
  const promocode = h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'off' })
  const el = h('form', { class: 'form', id: 'signup-form', noValidate: true },
    field('signup', 'email', 'E-mail', email),
    field('signup', 'password', 'Password', password, 'At least 8 characters; avoid common passwords.'),
    field('signup', 'promocode', 'Promo code (optional)', promocode),
    h('p', { class: 'form-error', role: 'alert' }),
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
      // sign-up never signs in (spec 5.4): sign in with the same credentials at once
      const signed = await api.signIn(body.email, body.password, true)
      if (signed.status === 'success') return onSignedIn()
      f.showField(signed.fieldError)
    } catch (err) {
      f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Create account')
    }
  })
  return el
}

export function authView ({ onSignedIn }) {
  const forms = { signin: signInForm(onSignedIn), signup: signUpForm(onSignedIn) }
  const tabs = {}
  const panel = h('div', { class: 'auth-panel' })
  const show = (which) => {
    for (const [name, tab] of Object.entries(tabs)) tab.setAttribute('aria-selected', String(name === which))
    panel.replaceChildren(forms[which])
    forms[which].querySelector('input')?.focus()
  }
  tabs.signin = h('button', { type: 'button', role: 'tab', id: 'tab-signin', class: 'tab', onClick: () => show('signin') }, 'Sign in')
  tabs.signup = h('button', { type: 'button', role: 'tab', id: 'tab-signup', class: 'tab', onClick: () => show('signup') }, 'Create account')
  const node = h('section', { class: 'auth' },
    h('div', { class: 'auth-intro' },
      h('h1', null, 'Understand a profile at a glance'),
      h('p', null, 'Search a social-network profile, generate a report and see its interests, red flags, friends and how its interests changed month by month.')
    ),
    h('div', { class: 'card auth-card' },
      h('div', { class: 'tabs', role: 'tablist' }, tabs.signin, tabs.signup),
      panel
    )
  )
  show('signin')
  return { node }
}
