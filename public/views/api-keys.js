// The account page's "API keys" card: the person's keys (never the key itself: its prefix), a form
// that makes one (its key shown once, public/one-time-secret.js), and revoking one. Creating a key
// needs a fresh proof of the owner (public/fresh-proof.js). The card loads and fails on its own.
import * as api from '../api.js'
import { errorText, formatDateTime, h, listLoader, timeAgo } from '../dom.js'
import { field, formHelpers, formStatus } from '../forms.js'
import { ProofCancelled, withFreshProof } from '../fresh-proof.js'
import { secretSlot, showSecret } from '../one-time-secret.js'
import { isStaff } from './admin/common.js'

// the API's scopes, in its order; the dashboard test checks that this list names every one the API has
// (admin:read only a staff member may issue: the form offers it to staff alone)
export const SCOPES = [
  ['reports:read', 'Read reports', 'list and read reports, export them, follow their progress'],
  ['reports:write', 'Write reports', 'create, generate and delete reports (generating spends your credits)'],
  ['profiles:read', 'Search profiles', 'search the profiles reports are made on'],
  ['webhooks', 'Webhooks', 'manage webhook endpoints and their deliveries'],
  ['alerts', 'Alerts', 'watch reports, read their alerts and follow them live'],
  ['admin:read', 'Staff reads', 'read the staff console\'s accounts, audit log and overview (never a change there)']
]
const STAFF_ONLY = new Set(['admin:read'])

const P = 'api-key'

/** one key of the list: its name, scopes, prefix and dates, and its revoke button */
function keyItem (key, revoke) {
  const button = h('button', { type: 'button', class: 'button small danger', 'aria-label': `Revoke the key ${key.name}` }, 'Revoke')
  button.addEventListener('click', () => revoke(key, button))
  const expired = key.expiresAt && Date.parse(key.expiresAt) <= Date.now()
  return h('li', { class: 'program-item', dataset: { id: key.id } },
    h('div', { class: 'program-main' },
      h('span', { class: 'program-name' }, key.name, expired ? h('span', { class: 'badge muted-badge' }, 'Expired') : null),
      h('span', { class: 'program-tags' }, key.scopes.map((s) => h('span', { class: 'badge muted-badge scope' }, s))),
      h('code', { class: 'key-prefix', title: 'the start of the key: the rest is known to its holder only' }, `pir_${key.prefix}_…`),
      h('span', { class: 'muted small' }, [
        `created ${formatDateTime(key.createdAt)}`,
        key.lastUsedAt ? `last used ${timeAgo(key.lastUsedAt)}` : 'never used',
        key.expiresAt ? `${expired ? 'expired' : 'expires'} ${formatDateTime(key.expiresAt)}` : 'does not expire'
      ].join(' · '))),
    button)
}

function createForm (ctx, { alert, proofSlot, secret, reload }) {
  const name = h('input', { type: 'text', maxLength: 100, autocomplete: 'off', required: true })
  const days = h('input', { type: 'number', min: 1, max: 3650, step: 1, inputMode: 'numeric', placeholder: 'never' })
  const boxes = SCOPES.filter(([scope]) => !STAFF_ONLY.has(scope) || isStaff(ctx.user)).map(([scope, label, hint]) => {
    const input = h('input', { type: 'checkbox', name: 'scopes', value: scope, id: `${P}-scope-${scope.replace(':', '-')}`, 'aria-describedby': `${P}-scope-${scope.replace(':', '-')}-hint` })
    return h('div', { class: 'check-row' },
      h('label', { class: 'check' }, input, h('span', null, h('span', { class: 'check-name' }, label), ' ', h('code', null, scope))),
      h('p', { class: 'hint', id: `${input.id}-hint` }, hint))
  })
  const el = h('form', { class: 'form', id: `${P}-form`, noValidate: true, 'aria-labelledby': `${P}-form-title` },
    h('h3', { class: 'form-title', id: `${P}-form-title` }, 'New key'),
    field(P, 'name', 'Name', name, 'What the program is, to tell its key apart: "nightly batch".'),
    h('fieldset', { class: 'fieldset', id: `${P}-scopes`, 'aria-describedby': `${P}-scopes-error` },
      h('legend', null, 'What it may do'),
      boxes,
      h('p', { class: 'field-error', id: `${P}-scopes-error`, role: 'alert' })),
    field(P, 'expiresInDays', 'Expires after (days)', days, 'Leave empty for a key that does not expire.'),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary' }, 'Create the key'))
  const f = formHelpers(el, P)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    alert.textContent = ''
    const scopes = [...el.querySelectorAll('input[name=scopes]:checked')].map((i) => i.value)
    const body = { name: name.value.trim(), scopes }
    if (!body.name) return f.showField({ field: 'name', message: 'Give the key a name' })
    if (!scopes.length) {
      el.querySelector(`#${P}-scopes-error`).textContent = 'Choose at least one thing it may do'
      return el.querySelector('input[name=scopes]').focus()
    }
    if (days.value !== '') {
      const n = Number(days.value)
      if (!Number.isInteger(n) || n < 1 || n > 3650) return f.showField({ field: 'expiresInDays', message: 'A whole number of days from 1 to 3650' })
      body.expiresInDays = n
    }
    f.busy(true, 'Creating…')
    try {
      const made = await withFreshProof(ctx, proofSlot, P, () => api.createApiKey(body))
      el.reset()
      showSecret(secret, P, { title: `Your new key "${made.name}"`, label: 'The key', value: made.key })
      secret.querySelector('input')?.focus()
      await reload()
    } catch (err) {
      if (!(err instanceof ProofCancelled)) f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Create the key')
    }
  })
  return el
}

export function apiKeysCard (ctx) {
  const alert = h('p', { class: 'form-error', id: `${P}s-error`, role: 'alert' })
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const secret = secretSlot(P)
  const list = h('ul', { class: 'program-list', id: `${P}-list`, 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading your keys…'))

  const revoke = async (key, button) => {
    if (!confirm(`Revoke the key "${key.name}"? Programs that use it are refused from now on. This cannot be undone.`)) return
    alert.textContent = ''
    button.disabled = true
    try {
      await api.revokeApiKey(key.id)
      await load()
    } catch (err) {
      alert.textContent = errorText(err)
      button.disabled = false
    }
  }
  const load = listLoader(list, api.apiKeys, (k) => keyItem(k, revoke), 'No key yet.')
  load()
  return h('section', { class: 'card', id: 'account-api-keys', 'aria-labelledby': `${P}s-title` },
    h('h2', { id: `${P}s-title`, tabIndex: -1 }, 'API keys'),
    h('p', { class: 'muted small' }, 'A program sends a key instead of your password. It acts as you, within what you let it do, and spends your credits.'),
    alert, proofSlot, secret, list,
    createForm(ctx, { alert, proofSlot, secret, reload: load }))
}
