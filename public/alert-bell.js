// The header's bell: the unread alerts (docs/decisions/dashboard.md, Dashboard). The count is
// `unread` of GET /alerts; the user's stream (GET /sse/alerts, the session cookie) says when an
// alert is raised, and each `alert` event asks for the count again rather than adding one, so an
// alert raised between the first count and the stream's start is neither lost nor counted twice.
// While the stream is closed for good (refused, or ended by the service) the count is asked every
// 30 s.
import * as api from './api.js'
import { h, SOURCE_NAMES } from './dom.js'

const POLL_MS = 30_000
const COUNT_DELAY_MS = 250

const listeners = new Set()
let unread = null
let source = null
let pollTimer = null
let countTimer = null
let running = false

const link = h('a', { href: '#/alerts', class: 'button ghost small bell', id: 'alerts-bell', 'aria-label': 'Alerts' },
  bellIcon(), h('span', { class: 'bell-count', id: 'alerts-count', 'aria-hidden': 'true', hidden: true }))
// a new alert is announced once, in words; the link's name carries the count
const live = h('span', { class: 'visually-hidden', id: 'alerts-live', role: 'status' })

function bellIcon () {
  const ns = 'http://www.w3.org/2000/svg'
  const svg = document.createElementNS(ns, 'svg')
  svg.setAttribute('viewBox', '0 0 24 24')
  svg.setAttribute('width', '18')
  svg.setAttribute('height', '18')
  svg.setAttribute('aria-hidden', 'true')
  svg.setAttribute('focusable', 'false')
  const path = document.createElementNS(ns, 'path')
  path.setAttribute('d', 'M12 3a6 6 0 0 0-6 6v3.5L4.5 16h15L18 12.5V9a6 6 0 0 0-6-6Zm-2.5 15a2.5 2.5 0 0 0 5 0')
  path.setAttribute('fill', 'none')
  path.setAttribute('stroke', 'currentColor')
  path.setAttribute('stroke-width', '1.8')
  path.setAttribute('stroke-linejoin', 'round')
  svg.append(path)
  return svg
}

function draw () {
  const count = link.querySelector('.bell-count')
  count.textContent = unread > 99 ? '99+' : String(unread ?? 0)
  count.hidden = !unread
  link.dataset.unread = String(unread ?? 0)
  link.setAttribute('aria-label', unread ? `Alerts, ${unread} unread` : 'Alerts, none unread')
  link.title = unread ? `${unread} unread alert${unread === 1 ? '' : 's'}` : 'Alerts'
}

/** the bell link and its live region, for the header (the same nodes at every redraw) */
export function bellNodes () {
  draw()
  return [link, live]
}

/** ask the server for the unread count now */
export async function refreshUnread () {
  clearTimeout(countTimer)
  countTimer = null
  try {
    const page = await api.alerts({ limit: 1 })
    if (!running) return
    unread = page.unread
    draw()
  } catch {}
}

/** fn(alert) for every alert the stream brings while signed in; returns the function that stops it */
export function onAlert (fn) {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

function poll () {
  clearTimeout(pollTimer)
  pollTimer = setTimeout(async () => {
    await refreshUnread()
    if (running && source === null) poll()
  }, POLL_MS)
}

function received (event) {
  let alert
  try { alert = JSON.parse(event.data) } catch { return }
  live.textContent = `New alert: @${alert.username} on ${SOURCE_NAMES[alert.source] ?? alert.source}, ${alert.newRedFlags.length ? `${alert.newRedFlags.length} new red flag${alert.newRedFlags.length === 1 ? '' : 's'}` : 'interests changed'}.`
  // many alerts raised at once give one count request
  countTimer ??= setTimeout(refreshUnread, COUNT_DELAY_MS)
  for (const fn of listeners) fn(alert)
}

/** signed in: count, then follow the stream */
export function startAlerts () {
  if (running) return
  running = true
  refreshUnread()
  if (typeof EventSource !== 'function') return poll()
  source = new EventSource(api.alertStreamUrl())
  source.addEventListener('alert', received)
  // the service ended the stream (session ended, token expired): an EventSource would reconnect
  source.addEventListener('end', () => { source?.close(); source = null; poll() })
  source.addEventListener('error', () => {
    if (source?.readyState === EventSource.CLOSED) { source = null; poll() }
  })
}

/** signed out: no stream, no count */
export function stopAlerts () {
  running = false
  source?.close()
  source = null
  clearTimeout(pollTimer)
  clearTimeout(countTimer)
  countTimer = null
  unread = null
  live.textContent = ''
  draw()
}

/** the count changed in this page (alerts marked read): ask again at once */
export const alertsChanged = refreshUnread
