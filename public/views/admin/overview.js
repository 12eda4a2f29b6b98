// The console's first page (#/admin): GET /admin/overview as groups of figures (users, reports, the
// queue, webhook deliveries, alerts). Each group is drawn from what the API answers, so a figure the
// API adds shows without a change here; the labels below only word the ones known today.
import * as api from '../../api.js'
import { fill, h } from '../../dom.js'
import { refusal } from './common.js'

const LABELS = {
  users: 'Users',
  reports: 'Reports',
  queue: 'Queue',
  webhooks: 'Webhook deliveries',
  webhookDeliveries: 'Webhook deliveries',
  alerts: 'Alerts',
  total: 'In all',
  confirmed: 'Confirmed',
  unconfirmed: 'Unconfirmed',
  disabled: 'Disabled',
  new24h: 'New in 24 h',
  newIn24h: 'New in 24 h',
  byStatus: 'By status',
  generated24h: 'Generated in 24 h',
  generatedIn24h: 'Generated in 24 h',
  depth: 'Waiting',
  queueDepth: 'Waiting in the queue',
  pending: 'Pending',
  failed: 'Failed',
  draft: 'Draft',
  queued: 'Queued',
  generating: 'Generating',
  ready: 'Ready',
  alertsPending: 'Pending'
}

/** "webhookBacklog" -> "Webhook backlog", for a figure the labels above do not know */
function label (key) {
  if (LABELS[key]) return LABELS[key]
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([a-zA-Z])(\d)/g, '$1 $2').replace(/_/g, ' ').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** the figures of one group as tiles; a nested group (reports by status) as its own row of tiles */
function figures (value, key) {
  if (typeof value === 'number') return [h('div', { class: 'stat', dataset: { figure: key } }, h('dt', null, label(key)), h('dd', null, value.toLocaleString()))]
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => figures(v, k))
  return []
}

function group (key, value) {
  const tiles = figures(value, key)
  return h('section', { class: 'card admin-figures', id: `admin-overview-${key}`, 'aria-labelledby': `admin-overview-${key}-title` },
    h('h2', { id: `admin-overview-${key}-title` }, label(key)),
    h('dl', { class: 'stats admin-stats' }, tiles.length ? tiles : h('div', { class: 'muted' }, 'Nothing to show.')))
}

export function overviewPage () {
  const body = h('div', { class: 'admin-overview', id: 'admin-overview', 'aria-busy': 'true' }, h('p', { class: 'muted loading' }, 'Loading the overview…'))
  const load = async () => {
    body.setAttribute('aria-busy', 'true')
    try {
      const overview = await api.adminOverview()
      // a figure at the top level (a queue's depth as one number) is a group of its own
      fill(body, h('div', { class: 'admin-grid' }, Object.entries(overview).map(([key, value]) => group(key, value))))
    } catch (err) {
      fill(body, refusal(err, load))
    } finally {
      body.removeAttribute('aria-busy')
    }
  }
  load()
  return { title: 'Overview', node: h('div', null, h('h1', { class: 'admin-title' }, 'Overview'), body) }
}
