// The ten recovery codes of a second factor just turned on, shown once (docs/decisions/accounts.md,
// Second factors): a numbered list, two columns where there is room, each code on its own line to
// copy by hand; Copy puts all of them on the clipboard, one a line, and Download saves the same
// text as a file. Like the one-time secrets (public/one-time-secret.js) they are kept nowhere else,
// and the slot is an aria-live region.
import { fill, h } from '../dom.js'

/** the codes in `slot` (from secretSlot(prefix)); ids `${prefix}-codes`, `-copy`, `-download`, `-done` */
export function showRecoveryCodes (slot, prefix, codes) {
  const text = `${codes.join('\n')}\n`
  const list = h('ol', { class: 'recovery-codes', id: `${prefix}-codes`, 'aria-describedby': `${prefix}-codes-note` },
    codes.map((code) => h('li', null, h('code', { class: 'secret-value' }, code))))
  const status = h('p', { class: 'form-ok', id: `${prefix}-codes-status`, role: 'status' })
  const copy = h('button', { type: 'button', class: 'button primary', id: `${prefix}-codes-copy` }, 'Copy')
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text)
      status.textContent = 'Copied to the clipboard.'
    } catch {
      // no clipboard (an insecure origin, a denied permission): the list is selected for the person
      getSelection()?.selectAllChildren(list)
      status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy them.'
    }
  })
  const download = h('button', { type: 'button', class: 'button', id: `${prefix}-codes-download` }, 'Download')
  download.addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }))
    const a = h('a', { href: url, download: 'recovery-codes.txt', hidden: true })
    document.body.append(a)
    a.click()
    a.remove()
    // the download has its own copy once started
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
    status.textContent = 'Saved as recovery-codes.txt.'
  })
  const done = h('button', { type: 'button', class: 'button ghost', id: `${prefix}-codes-done` }, 'I have stored them')
  done.addEventListener('click', () => {
    fill(slot)
    // the codes' own buttons are gone: the focus goes back to the card
    slot.closest('section')?.querySelector('h2')?.focus()
  })
  fill(slot, h('div', { class: 'secret-box' },
    h('p', { class: 'secret-title' }, 'Your recovery codes'),
    h('p', { class: 'small', id: `${prefix}-codes-note` },
      `${codes.length} codes: each one signs you in once in place of a code, if you lose the phone with the app. `,
      'Store them now somewhere safe: ', h('strong', null, 'you will not see them again'), '.'),
    list,
    h('div', { class: 'actions start' }, copy, download),
    status,
    h('div', { class: 'actions start' }, done)))
}
