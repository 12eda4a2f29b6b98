// The account page's security log (docs/security.md, The security log): what happened to the account,
// newest first, a page at a time ("More" while the API says hasMore), each event with its device as
// the sessions card names it, its address, and "by staff" where the service's staff acted. Above it,
// the one security notice the person may turn off: the mail for a sign-in from a new device.
import * as api from '../api.js'
import { errorText, fill, formatDateTime, h } from '../dom.js'
import { ProofCancelled, withFreshProof } from '../fresh-proof.js'

const PAGE = 10

/** what each audit kind means to the holder; an unknown kind is shown as it is */
const KIND_TEXT = {
  signup: 'Account created',
  confirm: 'E-mail address confirmed',
  'signin.success': 'Signed in',
  'signin.failure': 'Failed sign-in',
  'mfa.verify.success': 'Second factor accepted',
  'mfa.verify.failure': 'Second factor refused',
  signout: 'Signed out',
  'password.change': 'Password changed',
  'password.reset': 'Password reset with a recovery link',
  'password.removed': 'Unconfirmed password removed',
  'idp.link': 'Google linked',
  'idp.unlink': 'Google unlinked',
  'mfa.totp.confirm': 'Authenticator app added',
  'mfa.totp.remove': 'Authenticator app removed',
  'passkey.add': 'Passkey added',
  'passkey.remove': 'Passkey removed',
  'mfa.factors.removed': 'Second factors removed',
  'apikey.create': 'API key created',
  'apikey.revoke': 'API key revoked',
  'webhook.create': 'Webhook endpoint added',
  'webhook.disable': 'Webhook endpoint disabled',
  'session.end': 'Sessions signed out',
  'admin.disable': 'Account disabled',
  'admin.enable': 'Account enabled',
  'admin.credits': 'Report credits changed',
  'admin.sessions.end': 'Sessions signed out',
  'admin.factors.remove': 'Second factors removed',
  'admin.mail': 'A link mailed to you',
  'admin.role': 'Role changed'
}

function eventItem (e) {
  const where = e.by === 'staff' ? null : [e.device || 'Unknown device', e.ip ? `from ${e.ip}` : null].filter(Boolean).join(' ')
  return h('li', { class: 'security-event', dataset: { kind: e.kind, by: e.by } },
    h('span', { class: 'session-main' },
      h('span', { class: 'security-event-head' }, KIND_TEXT[e.kind] ?? e.kind,
        e.by === 'staff' ? h('span', { class: 'badge flag' }, 'by staff') : null),
      h('span', { class: 'muted small' }, [where, formatDateTime(e.createdAt)].filter(Boolean).join(' · '))))
}

/** the new-device notice's checkbox: turning it on or off needs a fresh proof, as the API does */
function noticeSetting (ctx, alert, proofSlot) {
  const box = h('input', { type: 'checkbox', id: 'new-device-notices', disabled: true, 'aria-describedby': 'new-device-notices-hint' })
  box.addEventListener('change', async () => {
    const wanted = box.checked
    alert.textContent = ''
    box.disabled = true
    try {
      const saved = await withFreshProof(ctx, proofSlot, 'notices', () => api.setNoticeSettings({ newDevice: wanted }))
      box.checked = saved.newDevice
    } catch (err) {
      box.checked = !wanted
      if (!(err instanceof ProofCancelled)) alert.textContent = errorText(err)
    } finally {
      box.disabled = false
    }
  })
  api.noticeSettings()
    .then((settings) => { box.checked = settings.newDevice; box.disabled = false })
    .catch((err) => { alert.textContent = errorText(err) })
  return h('div', { class: 'check-row' },
    h('label', { class: 'check', for: 'new-device-notices' }, box, 'Mail me when my account is signed in to from a new device'),
    h('p', { class: 'hint muted small', id: 'new-device-notices-hint' },
      'Every other security notice (a password, second factor, API key, webhook or Google change, and whatever our staff do) is always mailed.'))
}

export function securityLogCard (ctx) {
  const alert = h('p', { class: 'form-error', role: 'alert' })
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const list = h('ul', { class: 'session-list', id: 'security-log', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading the security log…'))
  const more = h('button', { type: 'button', class: 'button small', id: 'security-log-more', hidden: true }, 'More')
  const count = h('span', { class: 'muted small', id: 'security-log-count', role: 'status' })
  let items = []

  const show = (page) => {
    fill(list, items.length ? items.map(eventItem) : h('li', { class: 'muted empty' }, 'Nothing yet.'))
    more.hidden = !page.hasMore
    count.textContent = page.total ? `${Math.min(items.length, page.total)} of ${page.total}` : ''
  }
  const load = async (offset) => {
    alert.textContent = ''
    try {
      const page = await api.securityEvents(offset, PAGE)
      items = offset === 0 ? page.items : items.concat(page.items)
      show(page)
    } catch (err) {
      if (items.length) alert.textContent = errorText(err)
      else fill(list, h('li', { class: 'muted empty' }, errorText(err)))
    } finally {
      list.removeAttribute('aria-busy')
    }
  }
  more.addEventListener('click', async () => {
    more.disabled = true
    await load(items.length)
    more.disabled = false
  })
  load(0)
  return h('section', { class: 'card', id: 'account-security-log' },
    h('div', { class: 'section-head' }, h('h2', null, 'Security log'), count),
    noticeSetting(ctx, alert, proofSlot), proofSlot, list, alert, h('div', { class: 'actions start' }, more))
}
