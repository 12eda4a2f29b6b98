// A secret the API answers once (a new API key, a webhook's signing secret): shown in a read-only
// field with a Copy button until the person dismisses it or leaves the page; it is kept nowhere else
// (docs/decisions/dashboard.md, Dashboard). The slot is an aria-live region, so a screen reader
// announces it.
import { fill, h } from './dom.js'

/** a live region for the card's one-time secret: empty until show() fills it */
export function secretSlot (prefix) {
  return h('div', { class: 'secret-slot', id: `${prefix}-secret`, 'aria-live': 'polite' })
}

/** show `value` in `slot` (from secretSlot), named by `label`, `more` said above it; ids `${prefix}-secret-value`, `-copy`, `-done` */
export function showSecret (slot, prefix, { title, label, value, more }) {
  const input = h('input', { type: 'text', id: `${prefix}-secret-value`, readOnly: true, value, autocomplete: 'off', class: 'secret-value' })
  input.addEventListener('focus', () => input.select())
  const status = h('p', { class: 'form-ok', id: `${prefix}-secret-status`, role: 'status' })
  const copy = h('button', { type: 'button', class: 'button primary', id: `${prefix}-secret-copy` }, 'Copy')
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value)
      status.textContent = 'Copied to the clipboard.'
    } catch {
      // no clipboard (an insecure origin, a denied permission): the person copies the selection
      input.focus()
      input.select()
      status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy it.'
    }
  })
  const done = h('button', { type: 'button', class: 'button ghost', id: `${prefix}-secret-done` }, 'I have stored it')
  done.addEventListener('click', () => {
    fill(slot)
    // the secret's own buttons are gone: the focus goes back to the card
    slot.closest('section')?.querySelector('h2')?.focus()
  })
  fill(slot, h('div', { class: 'secret-box' },
    h('p', { class: 'secret-title' }, title),
    h('p', { class: 'small', id: `${prefix}-secret-note` }, 'Copy it now and keep it somewhere safe: ', h('strong', null, 'you will not see it again'), '. Only its owner should hold it.'),
    more ? h('p', { class: 'small' }, more) : null,
    h('label', { for: input.id, class: 'secret-label' }, label),
    h('div', { class: 'secret-row' }, input, copy),
    status,
    h('div', { class: 'actions start' }, done)))
  input.setAttribute('aria-describedby', `${prefix}-secret-note`)
}
