// One webhook endpoint's delivery log on the account page: newest first, a page at a time ("More"
// while the API says hasMore), a Retry button on a failed or pending delivery. While the log is open
// and shows a pending delivery it is read again every few seconds, so a test event or a retry is
// seen arriving without a reload.
import * as api from '../api.js'
import { errorText, fill, formatDateTime, h } from '../dom.js'

const PAGE = 10
const POLL_MS = 2000
/** about a minute of polling: past that a pending delivery waits for a later retry (minutes) */
const POLL_TRIES = 30

const STATUS = {
  delivered: ['Delivered', 'status-ready'],
  failed: ['Failed', 'status-failed'],
  pending: ['Pending', 'status-queued']
}

function deliveryItem (d, retry) {
  const [label, kind] = STATUS[d.status] ?? [d.status, '']
  const answer = d.lastStatusCode === null ? (d.attempts ? 'no answer' : 'not sent yet') : `last answer ${d.lastStatusCode}`
  const again = d.status === 'delivered'
    ? null
    : h('button', { type: 'button', class: 'button small', 'aria-label': `Retry the ${d.type} delivery of ${formatDateTime(d.createdAt)}` }, 'Retry')
  again?.addEventListener('click', () => retry(d, again))
  return h('li', { class: 'delivery', dataset: { id: d.id, status: d.status } },
    h('div', { class: 'delivery-main' },
      h('span', { class: 'delivery-head' }, h('span', { class: `status ${kind}` }, label), ' ', h('code', null, d.type)),
      h('span', { class: 'muted small', title: d.lastError ?? undefined },
        [`${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`, answer, `created ${formatDateTime(d.createdAt)}`,
          d.deliveredAt ? `delivered ${formatDateTime(d.deliveredAt)}` : null].filter(Boolean).join(' · '))),
    again)
}

/** the log of `endpoint`, errors told in the card's `alert`; {node, refresh} */
export function deliveryLog (endpoint, alert) {
  const list = h('ul', { class: 'delivery-list', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading the deliveries…'))
  const more = h('button', { type: 'button', class: 'button small', hidden: true }, 'More')
  const again = h('button', { type: 'button', class: 'button small ghost' }, 'Refresh')
  const count = h('span', { class: 'muted small', role: 'status' })
  const node = h('div', { class: 'delivery-log', id: `webhook-${endpoint.id}-log` },
    h('div', { class: 'section-head' }, h('h4', null, 'Deliveries'), count, again),
    list, h('div', { class: 'actions start' }, more))
  let items = []
  let timer = null
  let tries = 0

  const show = (page) => {
    fill(list, items.length ? items.map((d) => deliveryItem(d, retry)) : h('li', { class: 'muted empty' }, 'Nothing sent yet.'))
    more.hidden = !page.hasMore
    count.textContent = page.total ? `${Math.min(items.length, page.total)} of ${page.total}` : ''
  }
  const poll = () => {
    clearTimeout(timer)
    if (!node.isConnected || node.hidden || !items.some((d) => d.status === 'pending') || tries >= POLL_TRIES) return
    tries++
    timer = setTimeout(() => { if (node.isConnected && !node.hidden) refresh(false) }, POLL_MS)
  }
  /** the first page again (`fresh`: a new round of polling, after an action of the person's) */
  const refresh = async (fresh = true) => {
    if (fresh) tries = 0
    try {
      const page = await api.deliveries(endpoint.id, 0, Math.max(PAGE, items.length))
      items = page.items
      show(page)
      poll()
    } catch (err) {
      alert.textContent = errorText(err)
      if (!items.length) fill(list, h('li', { class: 'muted empty' }, 'The deliveries could not be loaded.'))
    } finally {
      list.removeAttribute('aria-busy')
    }
  }
  const retry = async (d, button) => {
    alert.textContent = ''
    button.disabled = true
    try {
      await api.retryDelivery(endpoint.id, d.id)
      await refresh()
    } catch (err) {
      alert.textContent = errorText(err)
      button.disabled = false
    }
  }
  more.addEventListener('click', async () => {
    alert.textContent = ''
    more.disabled = true
    try {
      const page = await api.deliveries(endpoint.id, items.length, PAGE)
      const seen = new Set(items.map((d) => d.id))
      items = items.concat(page.items.filter((d) => !seen.has(d.id)))
      show(page)
      // the last page: the focus the hidden button had goes to the log's other button
      if (more.hidden) again.focus()
    } catch (err) {
      alert.textContent = errorText(err)
    } finally {
      more.disabled = false
    }
  })
  again.addEventListener('click', () => { alert.textContent = ''; refresh() })
  return { node, refresh }
}
