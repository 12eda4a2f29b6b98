// The user search (#/admin/users?q=…&status=…&offset=…): part of an address (any case), a status
// filter, and the accounts that match, twenty a page, each a link to its page. The search lives in
// the address, so Back returns to the same results and a search can be passed on as a link.
import * as api from '../../api.js'
import { formatDateTime, h, plural, timeAgo } from '../../dom.js'
import { field } from '../../forms.js'
import { hashWith, offsetOf, pagedList, rememberSearch } from './common.js'

const P = 'admin-search'

export const STATUSES = [['', 'Any status'], ['active', 'Active'], ['disabled', 'Disabled'], ['unconfirmed', 'Unconfirmed']]

/** the badges that tell an account apart in a list: its role, disabled, unconfirmed */
export function accountBadges (u) {
  return [
    u.role && u.role !== 'user' ? h('span', { class: `badge role-badge role-${u.role}` }, u.role === 'admin' ? 'Admin' : 'Support') : null,
    u.disabled ? h('span', { class: 'badge flag', dataset: { state: 'disabled' } }, 'Disabled') : null,
    u.confirmed === false ? h('span', { class: 'badge muted-badge' }, 'Unconfirmed') : null
  ]
}

const factors = (mfa) => [mfa?.totp ? 'app' : null, mfa?.passkeys ? plural(mfa.passkeys, 'passkey') : null].filter(Boolean).join(' + ') || 'no second factor'

function userRow (u) {
  return h('li', null,
    h('a', { class: 'admin-row', href: `#/admin/users/${encodeURIComponent(u.id)}`, dataset: { id: u.id } },
      h('span', { class: 'admin-row-main' },
        h('span', { class: 'admin-row-title' }, h('span', { class: 'admin-email' }, u.email), accountBadges(u)),
        h('span', { class: 'muted small' }, [
          `joined ${formatDateTime(u.createdAt)}`,
          u.lastSignInAt ? `last sign-in ${timeAgo(u.lastSignInAt)}` : 'never signed in',
          factors(u.mfa)
        ].join(' · '))),
      h('span', { class: 'admin-row-meta small' },
        h('span', null, plural(u.credits ?? 0, 'credit')),
        u.subscription ? h('span', { class: 'muted' }, `subscription ${u.subscription.status}`) : null)))
}

export function usersPage (ctx, params) {
  const q = params.q ?? ''
  const status = STATUSES.some(([s]) => s === params.status) ? params.status : ''
  const offset = offsetOf(params)
  const go = (next) => ctx.navigate(hashWith('#/admin/users', next))
  rememberSearch(hashWith('#/admin/users', { q, status, offset }))

  const input = h('input', { type: 'search', value: q, autocomplete: 'off', spellcheck: false, placeholder: 'alice@ or example.com' })
  const select = h('select', null, STATUSES.map(([value, text]) => h('option', { value, selected: value === status }, text)))
  const form = h('form', { class: 'admin-search', id: `${P}-form`, role: 'search', noValidate: true },
    field(P, 'q', 'Address contains', input),
    field(P, 'status', 'Status', select),
    h('button', { type: 'submit', class: 'button primary' }, 'Search'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    go({ q: input.value.trim(), status: select.value })
  })

  const list = h('ul', { class: 'admin-list', id: 'admin-user-list', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Searching…'))
  const foot = pagedList({
    list,
    offset,
    read: (limit) => api.adminUsers({ q: q || undefined, status: status || undefined, offset, limit }),
    row: userRow,
    empty: q || status ? 'No account matches.' : 'No account yet.',
    go: (o) => go({ q, status, offset: o }),
    label: 'admin-users'
  })
  return {
    title: 'Users',
    node: h('div', null,
      h('h1', { class: 'admin-title' }, 'Users'),
      h('section', { class: 'card', 'aria-label': 'Find an account' }, form, list, foot))
  }
}
