// The staff actions on an account (docs/operations.md, Support), each behind one confirm dialog: it
// names what the action does to whom ("Disable alice@example.com: ends its 3 sessions, …"), asks for
// the reason (removing the second factors: how the person's identity was proved), which the audit
// log keeps, and on "re-authentication required" shows the account page's fresh-proof prompt inside
// the dialog, then sends the action once more. A `support` member is not shown the admin-only ones
// (the API refuses them anyway).
import * as api from '../../api.js'
import { errorText, fill, h, plural } from '../../dom.js'
import { field, formHelpers, formStatus } from '../../forms.js'
import { ProofCancelled, withFreshProof } from '../../fresh-proof.js'
import { isAdmin } from './common.js'

const P = 'admin-action'
const MAX_DELTA = 1000

const list = (parts) => parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`

/** what goes with every session: the keys revoked and the endpoints disabled stay so after an enable */
function cutOff (u) {
  const live = u.webhooks.filter((w) => !w.disabled).length
  return [
    u.apiKeys.length ? `revokes its ${plural(u.apiKeys.length, 'API key')}` : null,
    live ? `disables its ${plural(live, 'webhook endpoint')}` : null
  ].filter(Boolean)
}

function disableEffect (u) {
  const parts = [
    u.sessions.length ? `ends ${u.sessions.length === 1 ? 'its session' : `its ${u.sessions.length} sessions`}` : 'ends any session it has',
    ...cutOff(u),
    'holds its mails'
  ]
  const kept = cutOff(u).length ? ' Enabling it again does not bring back the keys or endpoints: whoever had the account may have made them.' : ''
  return `${list(parts)}. A sign-in is answered "account disabled"; its reports, credits and watches are kept.${kept}`
}

function factorsEffect (u) {
  const factors = [u.mfa?.totp ? 'its authenticator app and recovery codes' : null, u.mfa?.passkeys ? `its ${plural(u.mfa.passkeys, 'passkey')}` : null].filter(Boolean)
  const parts = [`removes ${list(factors)}`, 'ends its sessions', ...cutOff(u)]
  return `${list(parts)}, as the command-line removal does. It then signs in with its password (or Google) alone until it sets a second factor up again.`
}

const ROLE_TEXT = {
  user: 'a plain user: no staff console',
  support: 'support: reads, disables and enables accounts, ends sessions, sends links',
  admin: 'admin: everything support does, and credits, second factors, roles and promo codes'
}

/** whether `me` may act on `u` at all: support acts on customers' accounts only (403 on a staff one) */
export const mayActOn = (me, u) => isAdmin(me) || u.role === 'user'

/**
 * The actions `me` may take on the account `u` (GET /admin/users/{id}), in the order the page shows
 * them: {key, label, danger, admin, title, effect(values), fields, confirm, call(values)}.
 */
export function actionsFor (me, u) {
  const who = u.email
  const all = [
    u.disabled
      ? { key: 'enable', label: 'Enable', title: `Enable ${who}`, confirm: 'Enable the account', effect: () => 'it may sign in again, and its mails go out again; its reports, credits and watches are as they were. API keys and webhook endpoints the disable revoked stay so: the holder makes new ones.', call: (v) => api.adminEnable(u.id, v.reason), done: `${who} is enabled.` }
      : { key: 'disable', label: 'Disable', danger: true, title: `Disable ${who}`, confirm: 'Disable the account', effect: () => disableEffect(u), call: (v) => api.adminDisable(u.id, v.reason), done: `${who} is disabled.` },
    {
      key: 'credits', label: 'Change credits', admin: true, title: `Change the credits of ${who}`, confirm: 'Change the credits',
      fields: [['delta', 'Credits to add (a negative number takes away)', () => h('input', { type: 'number', step: 1, min: -MAX_DELTA, max: MAX_DELTA, inputMode: 'numeric', required: true }), `A whole number from −${MAX_DELTA} to ${MAX_DELTA}, not 0. The balance is now ${u.credits}.`]],
      effect: (v) => {
        const d = Number(v.delta)
        if (!Number.isInteger(d) || d === 0) return `its balance of ${plural(u.credits, 'credit')} changes by the number you enter; the ledger keeps the change and the reason.`
        return `${d > 0 ? 'adds' : 'takes away'} ${plural(Math.abs(d), 'credit')}: ${u.credits} → ${u.credits + d}. The ledger keeps the change and the reason.`
      },
      check: (v) => {
        const d = Number(v.delta)
        if (v.delta === '' || !Number.isInteger(d) || d === 0 || Math.abs(d) > MAX_DELTA) return { field: 'delta', message: `A whole number from −${MAX_DELTA} to ${MAX_DELTA}, not 0` }
        return null
      },
      call: (v) => api.adminCredits(u.id, Number(v.delta), v.reason),
      done: `The credits of ${who} are changed.`
    },
    {
      key: 'sessions', label: 'End sessions', title: `End every session of ${who}`, confirm: 'End the sessions',
      effect: () => `${u.sessions.length ? `ends ${u.sessions.length === 1 ? 'its session' : `all ${u.sessions.length} of its sessions`}` : 'ends any session it has'}: it is signed out on every device and signs in again. Its API keys keep working.`,
      call: (v) => api.adminEndSessions(u.id, v.reason),
      done: `Every session of ${who} is ended.`
    },
    (u.mfa?.totp || u.mfa?.passkeys > 0) && {
      key: 'factors', label: 'Remove second factors', admin: true, danger: true, title: `Remove the second factors of ${who}`, confirm: 'Remove the second factors',
      reason: ['proof', 'How the person proved who they are', 'What you checked, for the audit log: "video call, ID card matched", "signed mail from the billing contact".'],
      effect: () => factorsEffect(u),
      call: (v) => api.adminRemoveFactors(u.id, v.proof),
      done: `The second factors of ${who} are removed.`
    },
    // a disabled account's mails are held (the API answers 409)
    !u.disabled && {
      key: 'recovery', label: 'Send a password-reset link', title: `Send a password-reset link to ${who}`, confirm: 'Send the link',
      effect: () => `mails a link to set a new password to ${who}, the account's own address. The link is not shown to you.`,
      call: (v) => api.adminMail(u.id, 'recovery', v.reason),
      done: `A password-reset link is on its way to ${who}.`
    },
    !u.confirmed && !u.disabled && {
      key: 'confirmation', label: 'Send the confirmation link', title: `Send the confirmation link to ${who}`, confirm: 'Send the link',
      effect: () => `mails a new link that confirms the address ${who}. The link is not shown to you.`,
      call: (v) => api.adminMail(u.id, 'confirmation', v.reason),
      done: `A confirmation link is on its way to ${who}.`
    },
    {
      key: 'role', label: 'Change role', admin: true, title: `Change the role of ${who}`, confirm: 'Change the role',
      fields: [['role', 'New role', () => h('select', null, Object.keys(ROLE_TEXT).map((r) => h('option', { value: r, selected: r === u.role }, r))), `Now ${u.role}.`]],
      effect: (v) => v.role === u.role ? `it stays ${u.role}.` : `makes it ${ROLE_TEXT[v.role] ?? v.role}.`,
      check: (v) => v.role === u.role ? { field: 'role', message: `It is ${u.role} already: choose another role` } : null,
      call: (v) => api.adminSetRole(u.id, v.role, v.reason),
      done: `The role of ${who} is changed.`
    }
  ]
  // the API refuses staff their own disable and role change (409)
  const own = me?.id !== undefined && me.id === u.id
  return all.filter((a) => a && (!a.admin || isAdmin(me)) && !(own && (a.key === 'disable' || a.key === 'role')))
}

/**
 * The confirm dialog of one action: its effect (redrawn as its fields change), its fields, the
 * reason, Confirm and Cancel, the API's message on a refusal, and the fresh-proof prompt when the
 * API asks for one. `onDone(result, action)` once the API has done it; the dialog closes then.
 */
export function actionDialog (ctx, onDone) {
  const dialog = h('dialog', { class: 'dialog admin-dialog', id: `${P}-dialog`, 'aria-labelledby': `${P}-title`, 'aria-describedby': `${P}-effect` })
  const open = (action) => {
    const [reasonName, reasonLabel, reasonHint] = action.reason ?? ['reason', 'Reason', 'Why, for the audit log and the account holder\'s security log: "abuse report #123", "asked by mail".']
    const inputs = {}
    const fields = (action.fields ?? []).map(([name, label, make, hint]) => {
      inputs[name] = make()
      return field(P, name, label, inputs[name], hint)
    })
    inputs[reasonName] = h('textarea', { rows: 2, maxLength: 500, required: true })
    const values = () => Object.fromEntries(Object.entries(inputs).map(([k, el]) => [k, el.value.trim()]))
    const effect = h('p', { class: 'admin-effect', id: `${P}-effect` })
    const drawEffect = () => fill(effect, h('strong', null, `${action.title}: `), action.effect(values()))
    drawEffect()
    const confirm = h('button', { type: 'submit', class: `button ${action.danger ? 'danger' : 'primary'}`, id: `${P}-confirm` }, action.confirm)
    const cancel = h('button', { type: 'button', class: 'button ghost', id: `${P}-cancel` }, 'Cancel')
    const form = h('form', { class: 'form', id: `${P}-form`, noValidate: true },
      effect, fields, field(P, reasonName, reasonLabel, inputs[reasonName], reasonHint), ...formStatus(),
      h('div', { class: 'actions' }, cancel, confirm))
    const proofSlot = h('div', { class: 'proof-slot', hidden: true })
    const f = formHelpers(form, P)
    form.addEventListener('input', drawEffect)
    form.addEventListener('change', drawEffect)
    cancel.addEventListener('click', () => dialog.close())
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      f.clear()
      const v = values()
      const problem = action.check?.(v) ?? (v[reasonName] ? null : { field: reasonName, message: action.reason ? 'Say how their identity was proved' : 'Give the reason' })
      if (problem) return f.showField(problem)
      f.busy(true, 'Working…')
      cancel.disabled = true
      try {
        const result = await withFreshProof(ctx, proofSlot, P, () => action.call(v))
        dialog.close()
        onDone(result, action)
      } catch (err) {
        if (!(err instanceof ProofCancelled)) f.showForm(errorText(err))
        f.busy(false, action.confirm)
        cancel.disabled = false
      }
    })
    fill(dialog,
      h('div', { class: 'dialog-head' },
        h('h2', { class: 'dialog-title', id: `${P}-title` }, action.title),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close', onClick: () => dialog.close() }, '×')),
      h('div', { class: 'dialog-body' }, form, proofSlot))
    dialog.showModal()
    ;(fields.length ? Object.values(inputs)[0] : inputs[reasonName]).focus()
  }
  // a prompt for a proof left open goes with the dialog, so its pending call ends as cancelled
  dialog.addEventListener('close', () => dialog.querySelector(`#${P}-proof-cancel`)?.click())
  return { dialog, open }
}
