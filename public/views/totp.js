// The account page's "Two-step sign-in" card (docs/decisions/accounts.md, Second factors): set up
// an authenticator app (its secret and otpauth:// link shown while it is set up, then confirmed
// with a first code), the recovery codes shown once (./recovery-codes.js), and removal. Setting up
// and removing need a fresh proof of the owner (public/fresh-proof.js). The key is shown three
// ways: a QR code a phone's app scans (public/qr-code.js), the key to type, and the link that opens
// the app on the phone that shows the page.
import * as api from '../api.js'
import { errorText, fill, h, plural } from '../dom.js'
import { field, formHelpers, formStatus } from '../forms.js'
import { needsFactorProof, ProofCancelled, withFreshProof } from '../fresh-proof.js'
import { secretSlot } from '../one-time-secret.js'
import { showRecoveryCodes } from './recovery-codes.js'

const P = 'totp'

/** the secret and the first-code form of a set-up begun */
function confirmForm (setup, onConfirmed) {
  // the encoder is loaded when a set-up begins, not with every page; without it the key and link remain
  const qr = h('figure', { class: 'qr', id: `${P}-qr` })
  import('../qr-code.js').then(({ qrCode }) => qr.append(qrCode(setup.otpauthUrl, 'QR code of the authenticator key')), () => qr.remove())
  const code = h('input', { type: 'text', autocomplete: 'one-time-code', inputMode: 'numeric', maxLength: 8, required: true })
  const el = h('form', { class: 'form', id: `${P}-confirm-form`, noValidate: true },
    h('p', null, 'Add this account to your authenticator app: scan the QR code with it, type the key below into it, or open the link on the phone that has the app.'),
    qr,
    h('p', null, 'Key: ', h('code', { id: `${P}-key`, class: 'secret-value' }, setup.secret)),
    h('p', null, h('a', { href: setup.otpauthUrl, id: `${P}-link` }, 'Open in the authenticator app')),
    field(P, 'code', 'The 6-digit code the app shows now', code),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary' }, 'Turn on'))
  const f = formHelpers(el, P)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    if (!code.value.trim()) return f.showField({ field: 'code', message: 'Enter the code' })
    f.busy(true, 'Checking…')
    try {
      const result = await api.confirmTotp(code.value.trim())
      if (result.status !== 'success') {
        f.busy(false, 'Turn on')
        return f.showField(result.fieldError)
      }
      await onConfirmed(result.recoveryCodes)
    } catch (err) {
      f.showForm(errorText(err))
      f.busy(false, 'Turn on')
    }
  })
  return el
}

export function totpCard (ctx) {
  const { user } = ctx
  const message = h('p', { class: 'form-error', role: 'alert' })
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const secret = secretSlot(P)
  const body = h('div', { id: `${P}-body` })
  // the account view is rebuilt on reload; the recovery codes stay in this card's slot until dismissed
  const reload = () => ctx.refreshUser()

  const act = async (button, call, then) => {
    message.textContent = ''
    button.disabled = true
    try {
      then(await withFreshProof(ctx, proofSlot, P, call))
    } catch (err) {
      if (!(err instanceof ProofCancelled)) message.textContent = errorText(err)
      button.disabled = false
    }
  }

  const on = (left) => {
    const remove = h('button', { type: 'button', class: 'button danger', id: `${P}-remove` }, 'Turn off')
    const removed = async () => {
      off()
      await reload()
    }
    // the account's last second factor goes only with a code of it (or a recovery code), not the password alone
    remove.addEventListener('click', () => act(remove, async () => {
      try {
        return await api.removeTotp()
      } catch (err) {
        if (!needsFactorProof(err)) throw err
        return null
      }
    }, async (result) => {
      if (result) return await removed()
      fill(body, offForm(removed, () => on(left)))
    }))
    fill(body,
      h('p', { id: `${P}-state` }, 'On: signing in asks for a code of your authenticator app.'),
      h('p', { class: 'muted small', id: `${P}-recovery-left` }, `${plural(left, 'recovery code')} left.`),
      h('div', { class: 'actions start' }, remove))
  }
  /** the code that turns off the account's last second factor */
  const offForm = (done, back) => {
    const code = h('input', { type: 'text', autocomplete: 'one-time-code', maxLength: 64, required: true })
    const cancel = h('button', { type: 'button', class: 'button ghost', id: `${P}-off-cancel` }, 'Cancel')
    cancel.addEventListener('click', back)
    const el = h('form', { class: 'form', id: `${P}-off-form`, noValidate: true },
      h('p', null, 'It is your only second factor: prove it with a code of your authenticator app, or one of your recovery codes.'),
      field(`${P}-off`, 'code', 'Code or recovery code', code),
      ...formStatus(),
      h('div', { class: 'actions start' }, h('button', { type: 'submit', class: 'button danger' }, 'Turn off'), cancel))
    const f = formHelpers(el, `${P}-off`)
    el.addEventListener('submit', async (event) => {
      event.preventDefault()
      f.clear()
      const typed = code.value.trim()
      if (!typed) return f.showField({ field: 'code', message: 'Enter the code' })
      f.busy(true, 'Checking…')
      try {
        await withFreshProof(ctx, proofSlot, P, () => api.removeTotp({ code: typed }))
        await done()
      } catch (err) {
        if (!(err instanceof ProofCancelled)) f.showForm(errorText(err))
        if (el.isConnected) f.busy(false, 'Turn off')
      }
    })
    return el
  }
  const off = () => {
    const start = h('button', { type: 'button', class: 'button primary', id: `${P}-start` }, 'Set up an authenticator app')
    const confirmed = async (codes) => {
      on(codes.length)
      showRecoveryCodes(secret, P, codes)
      await reload()
    }
    start.addEventListener('click', () => act(start, api.beginTotp, (setup) => fill(body, confirmForm(setup, confirmed))))
    fill(body,
      h('p', { id: `${P}-state` }, 'Off. With an authenticator app, signing in asks for its code after the password.'),
      h('div', { class: 'actions start' }, start))
  }
  if (user.mfa?.totp) on(user.mfa.recoveryCodesLeft)
  else off()
  return h('section', { class: 'card', id: 'account-totp' },
    h('h2', { tabIndex: -1 }, 'Two-step sign-in'), body, message, proofSlot, secret)
}
