// The audit log (#/admin/audit?userId&actorId&kind&from&to&offset): newest first, twenty a page,
// filtered by the account acted on, the one who acted (a staff member, or the holder), the kind
// ("admin.disable", or "admin.*" for every kind under a prefix) and a time range. Each line names the kind, both
// accounts (links to their pages), where it came from, and its details: a staff action's reason.
import * as api from '../../api.js'
import { formatDateTime, h } from '../../dom.js'
import { field, formHelpers } from '../../forms.js'
import { hashWith, offsetOf, pagedList, shortId } from './common.js'

const P = 'admin-audit'
const FILTERS = ['userId', 'actorId', 'kind', 'from', 'to']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** an ISO instant as a datetime-local input's value, in the browser's time zone */
function localValue (iso) {
  const t = Date.parse(iso ?? '')
  if (!Number.isFinite(t)) return ''
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60_000)
  return d.toISOString().slice(0, 16)
}

/** a datetime-local input's value as an ISO instant ('' when empty or not a time) */
function isoValue (local) {
  const t = Date.parse(local)
  return local && Number.isFinite(t) ? new Date(t).toISOString() : ''
}

const accountLink = (id, label) => id
  ? h('a', { href: `#/admin/users/${encodeURIComponent(id)}`, title: id, class: 'admin-id-link' }, `${label} ${shortId(id)}`)
  : null

/** a details object as "reason: …, delta: 5"; nested values as JSON */
function detailsText (details) {
  if (!details || typeof details !== 'object') return details ? String(details) : ''
  return Object.entries(details).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(' · ')
}

function eventRow (e) {
  return h('li', { class: 'admin-event', dataset: { kind: e.kind } },
    h('div', { class: 'admin-event-head' },
      h('code', { class: 'admin-kind' }, e.kind),
      h('time', { class: 'muted small', datetime: e.createdAt }, formatDateTime(e.createdAt))),
    h('div', { class: 'admin-event-who small' },
      accountLink(e.userId, 'account'),
      e.actorId && e.actorId !== e.userId ? [' · by ', accountLink(e.actorId, 'staff')] : null,
      e.ip || e.device ? h('span', { class: 'muted' }, ` · ${[e.device, e.ip].filter(Boolean).join(', ')}`) : null),
    e.details && Object.keys(e.details).length ? h('p', { class: 'admin-details small' }, detailsText(e.details)) : null)
}

export function auditPage (ctx, params) {
  const filters = Object.fromEntries(FILTERS.map((k) => [k, params[k] ?? '']))
  const offset = offsetOf(params)
  const go = (next) => ctx.navigate(hashWith('#/admin/audit', next))

  const inputs = {
    userId: h('input', { type: 'text', value: filters.userId, autocomplete: 'off', spellcheck: false }),
    actorId: h('input', { type: 'text', value: filters.actorId, autocomplete: 'off', spellcheck: false }),
    kind: h('input', { type: 'text', value: filters.kind, autocomplete: 'off', spellcheck: false, placeholder: 'admin.disable' }),
    from: h('input', { type: 'datetime-local', value: localValue(filters.from) }),
    to: h('input', { type: 'datetime-local', value: localValue(filters.to) })
  }
  const clear = h('button', { type: 'button', class: 'button ghost', id: `${P}-clear` }, 'Clear')
  clear.addEventListener('click', () => go({}))
  const form = h('form', { class: 'admin-filters', id: `${P}-form`, noValidate: true },
    field(P, 'userId', 'Account id', inputs.userId),
    field(P, 'actorId', 'Actor id', inputs.actorId),
    field(P, 'kind', 'Kind', inputs.kind, 'One kind, or admin.* for every staff action.'),
    field(P, 'from', 'From', inputs.from),
    field(P, 'to', 'To', inputs.to),
    h('div', { class: 'actions start' }, h('button', { type: 'submit', class: 'button primary' }, 'Filter'), clear))
  const f = formHelpers(form, P)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    f.clear()
    const userId = inputs.userId.value.trim().toLowerCase()
    const actorId = inputs.actorId.value.trim().toLowerCase()
    // the API takes whole ids only (an account's page shows its id)
    for (const [name, value] of [['userId', userId], ['actorId', actorId]]) {
      if (value && !UUID.test(value)) return f.showField({ field: name, message: 'A whole account id, as its page shows it' })
    }
    go({
      userId,
      actorId,
      kind: inputs.kind.value.trim(),
      from: isoValue(inputs.from.value),
      to: isoValue(inputs.to.value)
    })
  })

  const list = h('ul', { class: 'admin-events', id: 'admin-audit-list', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading the log…'))
  const foot = pagedList({
    list,
    offset,
    read: (limit) => api.adminAudit({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), offset, limit }),
    row: eventRow,
    empty: 'Nothing in the log matches.',
    go: (o) => go({ ...filters, offset: o }),
    label: 'admin-audit'
  })
  return {
    title: 'Audit log',
    node: h('div', null,
      h('h1', { class: 'admin-title' }, 'Audit log'),
      h('section', { class: 'card', 'aria-label': 'Filters' }, form),
      h('section', { class: 'card', 'aria-label': 'Events' }, list, foot))
  }
}
