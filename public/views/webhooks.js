// The account page's "Webhooks" card: the person's endpoints, a form that adds one (its signing
// secret shown once, public/one-time-secret.js), and per endpoint: send a test event, rotate the
// secret (the new one shown once), delete, and its delivery log (./webhook-deliveries.js). Adding
// an endpoint and rotating its secret need a fresh proof of the owner (public/fresh-proof.js). The
// card loads and fails on its own.
import * as api from '../api.js'
import { errorText, formatDateTime, h, listLoader } from '../dom.js'
import { field, formHelpers, formStatus } from '../forms.js'
import { ProofCancelled, withFreshProof } from '../fresh-proof.js'
import { secretSlot, showSecret } from '../one-time-secret.js'
import { deliveryLog } from './webhook-deliveries.js'

// the API's event types, in its order; the dashboard test checks that this list names every one
export const EVENTS = [
  ['report.ready', 'a report is ready'],
  ['report.failed', 'a report could not be generated'],
  ['watch.alert', 'a watched report\'s profiles changed (an alert)'],
  ['webhook.test', 'a test event, sent with "Send test"']
]

const P = 'webhook'

function endpointItem (endpoint, c) {
  const log = deliveryLog(endpoint, c.alert)
  log.node.hidden = true
  // the accessible name starts with the visible text, then says which endpoint
  const button = (label, action, kind = '') => {
    const b = h('button', { type: 'button', class: `button small ${kind}`.trim(), 'aria-label': `${label}: ${endpoint.url}` }, label)
    b.addEventListener('click', () => action(b))
    return b
  }
  // which logs are open lives in the card, not in this item: the list is drawn again after an action
  // (an endpoint added or deleted), and a log opened meanwhile stays open in the new drawing
  const show = (open) => {
    log.node.hidden = !open
    toggle.setAttribute('aria-expanded', String(open))
    if (open) c.open.add(endpoint.id)
    else c.open.delete(endpoint.id)
    if (open) log.refresh()
  }
  const toggle = button('Deliveries', () => show(log.node.hidden))
  toggle.setAttribute('aria-expanded', 'false')
  toggle.setAttribute('aria-controls', log.node.id)
  toggle.classList.add('log-toggle')
  if (c.open.has(endpoint.id)) show(true)

  const send = button('Send test', (b) => c.act(b, async () => {
    await api.testWebhook(endpoint.id)
    c.status.textContent = `A test event is on its way to ${endpoint.url}.`
    // the log shows it arriving
    if (log.node.hidden) toggle.click()
    else await log.refresh()
  }))
  send.classList.add('send-test')
  const rotate = button('Rotate secret', (b) => c.act(b, async () => {
    const { secret } = await withFreshProof(c.ctx, c.proofSlot, P, () => api.rotateWebhook(endpoint.id))
    showSecret(c.secret, P, {
      title: `A new signing secret for ${endpoint.url}`,
      label: 'The new secret',
      value: secret,
      more: 'For 24 hours deliveries are signed with the previous secret too, so the receiver can switch without missing one.'
    })
    c.secret.querySelector('input')?.focus()
  }))
  rotate.classList.add('rotate')
  const remove = button('Delete', (b) => {
    if (!confirm(`Delete the webhook ${endpoint.url}? Nothing more is sent to it and its delivery log goes too.`)) return
    return c.act(b, async () => {
      await api.deleteWebhook(endpoint.id)
      await c.reload()
    })
  }, 'danger')
  remove.classList.add('delete')

  return h('li', { class: 'program-item webhook', dataset: { id: endpoint.id } },
    h('div', { class: 'program-main' },
      h('span', { class: 'program-name webhook-url' }, endpoint.url,
        endpoint.disabledAt ? h('span', { class: 'badge flag', title: `disabled on ${formatDateTime(endpoint.disabledAt)}` }, 'Disabled') : null),
      h('span', { class: 'program-tags' }, endpoint.events.map((e) => h('span', { class: 'badge muted-badge' }, e))),
      h('span', { class: 'muted small' }, `added ${formatDateTime(endpoint.createdAt)}`,
        endpoint.disabledAt ? ` · disabled ${formatDateTime(endpoint.disabledAt)}: it answered 410 Gone, or the password was reset. Delete it and add it again to resume` : null),
      h('div', { class: 'actions start' }, toggle, endpoint.disabledAt ? null : send, rotate, remove),
      log.node))
}

function createForm (c) {
  const url = h('input', { type: 'url', autocomplete: 'off', required: true, placeholder: 'https://hooks.example.com/pir' })
  const boxes = EVENTS.map(([event, hint]) => {
    const id = `${P}-event-${event.replace('.', '-')}`
    return h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: event, id }),
      h('span', null, h('code', null, event), h('span', { class: 'muted' }, `: ${hint}`)))
  })
  const el = h('form', { class: 'form', id: `${P}-form`, noValidate: true, 'aria-labelledby': `${P}-form-title` },
    h('h3', { class: 'form-title', id: `${P}-form-title` }, 'New endpoint'),
    field(P, 'url', 'URL', url, 'Where the events are POSTed, signed with the endpoint\'s secret.'),
    h('fieldset', { class: 'fieldset', id: `${P}-events`, 'aria-describedby': `${P}-events-error` },
      h('legend', null, 'Events'),
      boxes,
      h('p', { class: 'field-error', id: `${P}-events-error`, role: 'alert' })),
    ...formStatus(),
    h('button', { type: 'submit', class: 'button primary' }, 'Add the endpoint'))
  const f = formHelpers(el, P)
  el.addEventListener('submit', async (event) => {
    event.preventDefault()
    f.clear()
    c.alert.textContent = ''
    const events = [...el.querySelectorAll('input[name=events]:checked')].map((i) => i.value)
    const target = url.value.trim()
    if (!/^https?:\/\/\S+$/i.test(target)) return f.showField({ field: 'url', message: 'A web address: https://…' })
    if (!events.length) {
      el.querySelector(`#${P}-events-error`).textContent = 'Choose at least one event'
      return el.querySelector('input[name=events]').focus()
    }
    f.busy(true, 'Adding…')
    try {
      const made = await withFreshProof(c.ctx, c.proofSlot, P, () => api.createWebhook(target, events))
      el.reset()
      showSecret(c.secret, P, { title: `The signing secret of ${made.url}`, label: 'The secret', value: made.secret })
      c.secret.querySelector('input')?.focus()
      await c.reload()
    } catch (err) {
      // 400: the API's word on the address (production wants https and a public address)
      if (err instanceof ProofCancelled) return
      if (err.status === 400) f.showField({ field: 'url', message: errorText(err) })
      else f.showForm(errorText(err))
    } finally {
      f.busy(false, 'Add the endpoint')
    }
  })
  return el
}

export function webhooksCard (ctx) {
  const alert = h('p', { class: 'form-error', id: `${P}s-error`, role: 'alert' })
  const status = h('p', { class: 'form-ok', id: `${P}s-status`, role: 'status' })
  const proofSlot = h('div', { class: 'proof-slot', hidden: true })
  const secret = secretSlot(P)
  const list = h('ul', { class: 'program-list', id: `${P}-list`, 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading your webhooks…'))
  const c = { ctx, alert, status, proofSlot, secret, reload: () => load(), open: new Set() }
  /** an endpoint's action: its button disabled meanwhile, a failure told in the card's alert */
  c.act = async (button, fn) => {
    alert.textContent = ''
    status.textContent = ''
    button.disabled = true
    try {
      await fn()
    } catch (err) {
      if (!(err instanceof ProofCancelled)) alert.textContent = errorText(err)
    } finally {
      button.disabled = false
    }
  }
  const load = listLoader(list, api.webhooks, (e) => endpointItem(e, c), 'No webhook yet.')
  load()
  return h('section', { class: 'card', id: 'account-webhooks', 'aria-labelledby': `${P}s-title` },
    h('h2', { id: `${P}s-title`, tabIndex: -1 }, 'Webhooks'),
    h('p', { class: 'muted small' }, 'The service POSTs an event to your endpoint when a report is ready or failed, or a watch raises an alert, so a program need not wait on it.'),
    alert, status, proofSlot, secret, list,
    createForm(c))
}
