// An account's page in the console (#/admin/users/<id>): the account (role, state, credits,
// subscription, second factors, acquisition code, its reports and watches), the actions staff may
// take on it (./actions.js), its sessions with their device names, its API keys (never the key: its
// prefix) and its webhook endpoints, and a link to its lines of the audit log.
import * as api from '../../api.js'
import { fill, formatDateTime, h, plural, timeAgo } from '../../dom.js'
import { actionDialog, actionsFor, mayActOn } from './actions.js'
import { refusal, searchHash } from './common.js'
import { accountBadges } from './users.js'

const row = (label, ...value) => h('div', { class: 'detail' }, h('dt', null, label), h('dd', null, ...value))

function accountCard (u) {
  const factors = [u.mfa?.totp ? 'authenticator app' : null, u.mfa?.passkeys ? plural(u.mfa.passkeys, 'passkey') : null].filter(Boolean)
  return h('section', { class: 'card', id: 'admin-user-account', 'aria-labelledby': 'admin-user-title' },
    h('h1', { class: 'admin-user-title', id: 'admin-user-title' }, h('span', { id: 'admin-user-email' }, u.email), ' ', accountBadges(u)),
    h('dl', { class: 'details' },
      row('State', h('span', { id: 'admin-user-state', dataset: { state: u.disabled ? 'disabled' : 'active' } }, u.disabled ? 'Disabled' : 'Active')),
      row('Role', h('span', { id: 'admin-user-role' }, u.role)),
      row('Address', u.confirmed ? 'Confirmed' : 'Not confirmed yet'),
      row('Credits', h('span', { id: 'admin-user-credits' }, String(u.credits))),
      row('Subscription', u.subscription ? u.subscription.status : 'None'),
      row('Second factors', factors.length ? factors.join(', ') : 'None'),
      row('Joined', formatDateTime(u.createdAt)),
      row('Last sign-in', u.lastSignInAt ? formatDateTime(u.lastSignInAt) : 'Never'),
      row('Reports', String(u.reports ?? 0)),
      row('Watches', String(u.watches ?? 0)),
      row('Acquisition code', u.acquisitionCode ? h('code', null, u.acquisitionCode) : h('span', { class: 'muted' }, 'None')),
      row('Id', h('code', { class: 'admin-id' }, u.id))),
    h('p', null, h('a', { href: `#/admin/audit?userId=${encodeURIComponent(u.id)}`, id: 'admin-user-audit' }, 'Its lines in the audit log →')))
}

function actionsCard (ctx, u, openAction) {
  const head = h('h2', { id: 'admin-user-actions-title' }, 'Actions')
  if (!mayActOn(ctx.user, u)) {
    return h('section', { class: 'card', id: 'admin-user-actions', 'aria-labelledby': 'admin-user-actions-title' },
      head, h('p', { class: 'muted', id: 'admin-user-staff-only' }, 'This is a staff account: only an admin acts on it.'))
  }
  const actions = actionsFor(ctx.user, u)
  return h('section', { class: 'card', id: 'admin-user-actions', 'aria-labelledby': 'admin-user-actions-title' },
    head,
    h('p', { class: 'muted small' }, 'Each asks for a reason, which the audit log and the account holder\'s security log keep; the holder is also sent a notice.'),
    h('div', { class: 'actions start admin-actions' }, actions.map((a) => {
      const button = h('button', { type: 'button', class: `button${a.danger ? ' danger' : ''}`, id: `admin-${a.key}` }, a.label)
      button.addEventListener('click', () => openAction(a))
      return button
    })))
}

function listCard (id, title, items, render, empty) {
  return h('section', { class: 'card', id, 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title, ' ', h('span', { class: 'muted count' }, `(${items.length})`)),
    h('ul', { class: 'program-list' }, items.length ? items.map(render) : h('li', { class: 'muted empty' }, empty)))
}

const sessionItem = (s) => h('li', { class: 'program-item' },
  h('div', { class: 'program-main' },
    h('span', { class: 'program-name session-device' }, s.device || 'Unknown browser'),
    h('span', { class: 'muted small' }, [s.ip ? `from ${s.ip}` : null, `signed in ${formatDateTime(s.createdAt)}`, s.lastUsedAt ? `last used ${timeAgo(s.lastUsedAt)}` : null].filter(Boolean).join(' · '))))

const keyItem = (k) => h('li', { class: 'program-item' },
  h('div', { class: 'program-main' },
    h('span', { class: 'program-name' }, k.name),
    h('span', { class: 'program-tags' }, (k.scopes ?? []).map((s) => h('span', { class: 'badge muted-badge scope' }, s))),
    h('code', { class: 'key-prefix' }, `pir_${k.prefix}_…`),
    h('span', { class: 'muted small' }, k.lastUsedAt ? `last used ${timeAgo(k.lastUsedAt)}` : 'never used')))

const hookItem = (w) => h('li', { class: 'program-item' },
  h('div', { class: 'program-main' },
    h('span', { class: 'program-name' }, w.url, w.disabled ? h('span', { class: 'badge flag' }, 'Disabled') : null),
    h('span', { class: 'program-tags' }, (w.events ?? []).map((e) => h('span', { class: 'badge muted-badge' }, e)))))

export function userPage (ctx, userId) {
  const notice = h('div', { class: 'admin-notice', 'aria-live': 'polite' })
  const body = h('div', { id: 'admin-user', 'aria-busy': 'true' }, h('p', { class: 'muted loading' }, 'Loading the account…'))
  // the account is read again first, so that the note and what the page shows agree
  const { dialog, open } = actionDialog(ctx, async (_result, action) => {
    await load()
    fill(notice, h('p', { class: 'notice ok', id: 'admin-action-done', role: 'status' }, action.done))
  })
  const load = async () => {
    body.setAttribute('aria-busy', 'true')
    try {
      const u = await api.adminUser(userId)
      fill(body,
        h('div', { class: 'account-grid' },
          h('div', { class: 'column' }, accountCard(u), actionsCard(ctx, u, (a) => { fill(notice); open(a) })),
          h('div', { class: 'column' },
            listCard('admin-user-sessions', 'Sessions', u.sessions ?? [], sessionItem, 'Not signed in anywhere.'),
            listCard('admin-user-keys', 'API keys', u.apiKeys ?? [], keyItem, 'No API key.'),
            listCard('admin-user-webhooks', 'Webhook endpoints', u.webhooks ?? [], hookItem, 'No webhook endpoint.'))))
    } catch (err) {
      fill(body, err?.status === 404 ? h('div', { class: 'card', role: 'alert' }, h('p', null, 'No account has this id.')) : refusal(err, load))
    } finally {
      body.removeAttribute('aria-busy')
    }
  }
  load()
  return {
    title: 'Account',
    node: h('div', null, h('a', { href: searchHash(), class: 'back', id: 'admin-user-back' }, '← Users'), notice, body, dialog),
    dispose: () => { if (dialog.open) dialog.close() }
  }
}
