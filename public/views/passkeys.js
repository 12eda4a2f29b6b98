// The account page's "Passkeys" card: the account's passkeys (name, when made, when last used), adding
// one through the browser's prompt, and removing one. Adding and removing need a fresh proof of the
// owner (public/fresh-proof.js); removing one signs the account's other sessions out, as every change
// of how it signs in does. The card loads and fails on its own.
import * as api from '../api.js'
import { errorText, formatDateTime, h, listLoader, timeAgo } from '../dom.js'
import { field, formHelpers, formStatus } from '../forms.js'
import { needsFactorProof, ProofCancelled, withFreshProof } from '../fresh-proof.js'
import { addPasskey, cancelled, passkeyAssertion, passkeyErrorText, passkeysSupported } from '../passkeys.js'

const P = 'passkey'

function passkeyItem (passkey, remove) {
  const button = h('button', { type: 'button', class: 'button small danger', 'aria-label': `Remove the passkey ${passkey.name}` }, 'Remove')
  button.addEventListener('click', () => remove(passkey, button))
  return h('li', { class: 'program-item', dataset: { id: passkey.id } },
    h('div', { class: 'program-main' },
      h('span', { class: 'program-name' }, passkey.name, passkey.backedUp ? h('span', { class: 'badge muted-badge' }, 'Synced') : null),
      h('span', { class: 'muted small' }, [
        `added ${formatDateTime(passkey.createdAt)}`,
        passkey.lastUsedAt ? `last used ${timeAgo(passkey.lastUsedAt)}` : 'never used'
      ].join(' · '))),
    button)
}

function addForm (ctx, { proofSlot, reload }) {
  const name = h('input', { type: 'text', maxLength: 64, autocomplete: 'off', placeholder: 'e.g. My laptop' })
  const el = h('form', { class: 'form', id: `${P}-form`, noValidate: true },
    field(P, 'name', 'Name (optional)', name, 'To tell your passkeys apart.'),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary' }, 'Add a passkey'))
  const f = formHelpers(el, P)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    f.busy(true, 'Waiting for your device…')
    try {
      const made = await withFreshProof(ctx, proofSlot, P, () => addPasskey(name.value.trim() || undefined))
      el.reset()
      f.showOk(`Added "${made.name}". You can sign in with it from now on.`)
      await reload()
    } catch (err) {
      if (!(err instanceof ProofCancelled) && !cancelled(err)) f.showForm(passkeyErrorText(err, errorText))
    } finally {
      f.busy(false, 'Add a passkey')
    }
  })
  return el
}

export function passkeysCard (ctx) {
  const alert = h('p', { class: 'form-error', id: `${P}s-error`, role: 'alert' })
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const list = h('ul', { class: 'program-list', id: `${P}-list`, 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading your passkeys…'))
  const remove = async (passkey, button) => {
    if (!confirm(`Remove the passkey "${passkey.name}"? It no longer signs you in, and your other sessions are signed out.`)) return
    alert.textContent = ''
    button.disabled = true
    try {
      // the account's last second factor goes only with an assertion of it, not the password alone
      const removeIt = async () => {
        try {
          return await api.removePasskey(passkey.id)
        } catch (err) {
          if (!needsFactorProof(err)) throw err
          return await api.removePasskey(passkey.id, { passkey: await passkeyAssertion() })
        }
      }
      await withFreshProof(ctx, proofSlot, `${P}-remove`, removeIt)
      await load()
    } catch (err) {
      if (!(err instanceof ProofCancelled)) alert.textContent = errorText(err)
      button.disabled = false
    }
  }
  const load = listLoader(list, api.passkeys, (p) => passkeyItem(p, remove), 'No passkey yet.')
  load()
  return h('section', { class: 'card', id: 'account-passkeys', 'aria-labelledby': `${P}s-title` },
    h('h2', { id: `${P}s-title`, tabIndex: -1 }, 'Passkeys'),
    h('p', { class: 'muted small' }, 'A passkey signs you in with your device\'s screen lock or security key, without a password. It also counts as a second factor.'),
    alert, proofSlot, list,
    passkeysSupported() ? addForm(ctx, { proofSlot, reload: load }) : h('p', { class: 'muted', id: `${P}-unsupported` }, 'This browser cannot make passkeys.'))
}
