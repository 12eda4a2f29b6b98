// Form building blocks shared by the sign-in, recovery and account views. A server refusal arrives as
// {status:"error", fieldError:{field, message}} and is shown under the field it names.
import { h } from './dom.js'

/** a labelled input with its hint and its error line, ids `${form}-${name}` and `${form}-${name}-error` */
export function field (form, name, label, input, hint) {
  const id = `${form}-${name}`
  const errorId = `${id}-error`
  input.id = id
  input.name = name
  input.setAttribute('aria-describedby', hint ? `${errorId} ${id}-hint` : errorId)
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
    h('p', { class: 'field-error', id: errorId, role: 'alert' })
  )
}

export function formHelpers (formEl, prefix) {
  const clear = () => {
    for (const el of formEl.querySelectorAll('.field-error, .form-error, .form-ok')) el.textContent = ''
    for (const el of formEl.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid')
  }
  const showField = (fieldError, fieldMap = {}) => {
    const name = fieldMap[fieldError.field] ?? fieldError.field
    const input = formEl.querySelector(`#${prefix}-${name}`)
    if (!input) return showForm(fieldError.message)
    input.setAttribute('aria-invalid', 'true')
    formEl.querySelector(`#${prefix}-${name}-error`).textContent = fieldError.message
    input.focus()
  }
  const showForm = (message) => { formEl.querySelector('.form-error').textContent = message }
  const showOk = (message) => { formEl.querySelector('.form-ok').textContent = message }
  const busy = (on, label) => {
    const button = formEl.querySelector('button[type=submit]')
    button.disabled = on
    button.textContent = label
  }
  return { clear, showField, showForm, showOk, busy }
}

export const passwordInput = (autocomplete = 'new-password') => h('input', { type: 'password', autocomplete, required: true })
export const PASSWORD_HINT = 'At least 8 characters; avoid common passwords.'

/** the form's status lines: an error (role alert) and a success note (role status) */
export const formStatus = () => [h('p', { class: 'form-error', role: 'alert' }), h('p', { class: 'form-ok', role: 'status' })]
