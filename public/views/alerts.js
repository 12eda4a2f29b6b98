// The alerts page (#/alerts): what the watched reports' profiles changed, by month, newest first,
// and within a month the alerts with new red flags first (docs/decisions/dashboard.md, Dashboard).
// Each alert names the profile and the month, lists its new red flags, new and lost interests, and
// links to the report's changes of that network. Alerts the stream brings while the page is open
// are added in their place; "Mark as read" and "Mark all as read" keep the bell's count with them.
import * as api from '../api.js'
import { errorText, fill, formatDateTime, formatMonth, h, plural, setTitle, sourceBadge } from '../dom.js'
import { alertsChanged, onAlert } from '../alert-bell.js'

const PAGE = 20

const redFirst = (a, b) => (b.month.localeCompare(a.month)) ||
  (Number(b.newRedFlags.length > 0) - Number(a.newRedFlags.length > 0)) ||
  b.createdAt.localeCompare(a.createdAt)

function pills (kind, list) {
  return h('ul', { class: 'pills' }, list.map((i) => h('li', { class: `pill pill-${kind}` },
    i.name, kind === 'red' && i.category ? h('span', { class: 'muted' }, ` · ${i.category}`) : null)))
}

function group (kind, label, list) {
  if (!list.length) return null
  return h('div', { class: `alert-group alert-${kind}` },
    h('h4', { class: 'alert-group-label' }, `${label} (${list.length})`), pills(kind, list))
}

function alertCard (alert, onRead) {
  const red = new Set(alert.newRedFlags.map((i) => i.id))
  const others = alert.new.filter((i) => !red.has(i.id))
  const titleId = `alert-title-${alert.id}`
  const read = h('button', { type: 'button', class: 'button ghost small', 'aria-describedby': titleId, hidden: alert.read }, 'Mark as read')
  const card = h('li', { class: 'alert-card card', id: `alert-${alert.id}`, dataset: { read: String(alert.read), red: String(red.size > 0) } },
    h('div', { class: 'alert-head' },
      sourceBadge(alert.source),
      h('h3', { class: 'alert-title', id: titleId },
        `@${alert.username}`, h('span', { class: 'muted' }, ' in '), h('time', { datetime: alert.month }, formatMonth(alert.month))),
      alert.read ? null : h('span', { class: 'badge unread-badge' }, 'New'),
      red.size ? h('span', { class: 'badge flag' }, plural(red.size, 'red flag')) : null
    ),
    group('red', 'New red flags', alert.newRedFlags),
    group('new', red.size ? 'Other new interests' : 'New interests', others),
    group('lost', 'Lost interests', alert.lost),
    h('div', { class: 'alert-actions' },
      h('a', { class: 'button small', href: `#/report/${encodeURIComponent(alert.reportId)}/diffs/${alert.source}/${alert.month}` },
        'See the changes in the report'),
      read,
      h('span', { class: 'muted small' }, `Raised ${formatDateTime(alert.createdAt)}`)
    )
  )
  read.addEventListener('click', async () => {
    read.disabled = true
    try {
      await api.markAlertRead(alert.id)
      alert.read = true
      onRead(alert)
    } catch (err) {
      read.disabled = false
      card.append(h('p', { class: 'form-error', role: 'alert' }, errorText(err)))
    }
  })
  return card
}

export function alertsView () {
  setTitle('Alerts')
  const alerts = []
  const seen = new Set()
  let total = 0
  let loading = false
  // no live region here: the list is drawn again whole, and the bell announces each new alert
  const list = h('div', { class: 'alerts-list', 'aria-busy': 'true' },
    h('p', { class: 'muted', role: 'status' }, 'Loading the alerts…'))
  const message = h('p', { class: 'form-error', role: 'alert' })
  const readAll = h('button', { type: 'button', class: 'button small', id: 'alerts-read-all', disabled: true }, 'Mark all as read')
  const more = h('button', { type: 'button', class: 'button ghost small', id: 'alerts-more', hidden: true }, 'Show older alerts')

  const draw = () => {
    list.setAttribute('aria-busy', 'false')
    readAll.disabled = !alerts.some((a) => !a.read)
    more.hidden = alerts.length >= total
    if (!alerts.length) {
      return fill(list, h('section', { class: 'card center', id: 'alerts-empty' },
        h('p', null, 'No alerts yet.'),
        h('p', { class: 'muted' }, 'Watch a ready report (the Watch button on its page): when its profiles change in a later month, the alert appears here and on the bell.')))
    }
    const sorted = [...alerts].sort(redFirst)
    const months = [...new Set(sorted.map((a) => a.month))]
    fill(list, months.map((month) => h('section', { class: 'alert-month', 'aria-labelledby': `alerts-month-${month}` },
      h('h2', { class: 'alert-month-label', id: `alerts-month-${month}` }, formatMonth(month)),
      h('ol', { class: 'alert-cards' }, sorted.filter((a) => a.month === month).map((a) => alertCard(a, () => { draw(); alertsChanged() })))
    )))
  }

  const add = (items) => {
    for (const a of items) {
      if (seen.has(a.id)) continue
      seen.add(a.id)
      alerts.push(a)
    }
  }

  const load = async () => {
    if (loading) return
    loading = true
    message.textContent = ''
    try {
      const page = await api.alerts({ offset: alerts.length, limit: PAGE })
      total = page.total
      add(page.items)
      draw()
    } catch (err) {
      list.setAttribute('aria-busy', 'false')
      message.textContent = errorText(err)
      if (!alerts.length) fill(list, h('button', { type: 'button', class: 'button', onClick: () => load() }, 'Try again'))
    } finally {
      loading = false
    }
  }

  readAll.addEventListener('click', async () => {
    readAll.disabled = true
    try {
      await api.markAllAlertsRead()
      for (const a of alerts) a.read = true
      draw()
      alertsChanged()
    } catch (err) {
      message.textContent = errorText(err)
      readAll.disabled = false
    }
  })
  more.addEventListener('click', load)

  const stop = onAlert((alert) => {
    if (seen.has(alert.id)) return
    total++
    add([alert])
    draw()
  })

  load()
  return {
    node: h('div', { class: 'alerts-page' },
      h('a', { href: '#/', class: 'back' }, '← All reports'),
      h('div', { class: 'alerts-head' }, h('h1', null, 'Alerts'), readAll),
      h('p', { class: 'muted' }, 'Changes in the profiles of the reports you watch, one alert per network and month.'),
      message, list, h('div', { class: 'actions' }, more)),
    dispose: stop
  }
}
