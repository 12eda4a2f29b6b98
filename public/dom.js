// Small DOM helpers. Text always goes in as text nodes (never innerHTML), so profile data cannot
// inject markup.

/** h('a', {href, class, onClick}, ...children) */
export function h (tag, props, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (key === 'class') el.className = value
    else if (key === 'dataset') Object.assign(el.dataset, value)
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value)
    else if (key.includes('-') || key === 'role' || key === 'for' || typeof value === 'string' && !(key in el)) el.setAttribute(key, value === true ? '' : value)
    else el[key] = value
  }
  append(el, children)
  return el
}

/**
 * el's children replaced by these, skipped as h() skips them (null, undefined, false): the DOM's own
 * replaceChildren would print a null child as the text "null"
 */
export function fill (el, ...children) {
  el.replaceChildren()
  append(el, children)
  return el
}

function append (el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue
    if (Array.isArray(child)) append(el, child)
    else el.append(child instanceof Node ? child : String(child))
  }
}

export const APP_NAME = 'Profile Interest Reports'

/** the browser's title for the view on screen: what it shows first, then the service's name */
export function setTitle (what) {
  document.title = what ? `${what} · ${APP_NAME}` : APP_NAME
}

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** a profile's link when it is a web address; anything else (javascript:, data:) is not linked */
export function webLink (url) {
  try {
    const u = new URL(url)
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null
  } catch {
    return null
  }
}

export const SOURCE_NAMES = { ig: 'Instagram', fb: 'Facebook', tt: 'TikTok', tw: 'X (Twitter)', li: 'LinkedIn' }
export const SOURCES = ['ig', 'fb', 'tt', 'tw', 'li']

export function sourceBadge (source) {
  return h('span', { class: `source source-${source}`, title: SOURCE_NAMES[source] ?? source }, SOURCE_NAMES[source] ?? source)
}

export function initials (p) {
  const words = (p.fullname || '').trim().split(/\s+/).filter(Boolean)
  const letters = words.length >= 2
    ? [words[0], words[words.length - 1]].map((w) => Array.from(w)[0])
    : Array.from((words[0] || p.username || '?').replace(/^[^\p{L}\p{N}]+/u, '')).slice(0, 2)
  return letters.join('').toUpperCase() || '?'
}

function hue (text) {
  let x = 0
  for (const c of String(text)) x = (x * 31 + c.codePointAt(0)) % 360
  return x
}

/**
 * the same-origin address of a profile's or account's image: the service fetches and keeps it, so the
 * network hosting it never sees who views it (the page's CSP allows images from this origin only)
 */
export const imageSrc = (url) => `/api/v1/images?url=${encodeURIComponent(url)}`

/** a round picture, or the person's initials when there is no image or it does not load */
export function avatar (p, size = 'md') {
  const wrap = h('span', { class: `avatar avatar-${size}`, 'aria-hidden': 'true' })
  wrap.style.setProperty('--hue', String(hue(p.username || p.fullname || '')))
  const showInitials = () => {
    wrap.classList.add('avatar-initials')
    wrap.replaceChildren(initials(p))
  }
  if (!p.image || p.imageNotLoaded) {
    showInitials()
  } else {
    const img = h('img', { src: imageSrc(p.image), alt: '', loading: 'lazy', referrerPolicy: 'no-referrer', decoding: 'async' })
    img.addEventListener('error', showInitials, { once: true })
    wrap.append(img)
  }
  return wrap
}

export function percent (share) {
  const p = share * 100
  if (p > 0 && p < 0.1) return '<0.1%'
  return `${p < 10 ? p.toFixed(1) : Math.round(p)}%`
}

export function bar (relative, kind = '') {
  const fill = h('span', { class: 'bar-fill' })
  fill.style.width = `${Math.max(2, Math.min(100, relative * 100)).toFixed(1)}%`
  return h('span', { class: `bar ${kind}`.trim() }, fill)
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
export const formatDateTime = (iso) => iso ? dateTime.format(new Date(iso)) : ''

const month = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' })
export function formatMonth (yyyyMm) {
  const [y, m] = yyyyMm.split('-').map(Number)
  return Number.isFinite(y) && Number.isFinite(m) ? month.format(new Date(Date.UTC(y, m - 1, 1))) : yyyyMm
}


export function statusBadge (status) {
  const labels = { draft: 'Draft', queued: 'Queued', generating: 'Generating', ready: 'Ready', failed: 'Failed' }
  return h('span', { class: `status status-${status}` }, labels[status] ?? status)
}

export function debounce (fn, ms) {
  let timer
  return (...args) => {
    clearTimeout(timer)
    timer = setTimeout(() => fn(...args), ms)
  }
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** how long ago a moment was, as a person says it: "just now", "2 minutes ago", "yesterday" */
export function timeAgo (iso, now = Date.now()) {
  const seconds = (now - Date.parse(iso)) / 1000
  if (!Number.isFinite(seconds)) return ''
  if (seconds < 60) return 'just now'
  for (const [unit, size, next] of [['minute', 60, 60], ['hour', 3600, 24], ['day', 86_400, 30]]) {
    if (seconds < size * next) return relative.format(-Math.floor(seconds / size), unit)
  }
  return formatDateTime(iso)
}

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' })

/** when a refused request may be sent again: "in 30 seconds (at 14:05)" */
export function retryWhen (seconds) {
  if (!Number.isFinite(seconds) || seconds <= 0) return 'in a moment'
  const wait = seconds < 90 ? plural(Math.ceil(seconds), 'second') : plural(Math.ceil(seconds / 60), 'minute')
  return `in ${wait} (at ${clock.format(new Date(Date.now() + seconds * 1000))})`
}

export const OFFLINE_TEXT = 'You are offline. Check your connection; the page works again once you are back online.'
export const UNAVAILABLE_TEXT = 'The service is unavailable, try again shortly.'

/** a message line for a failed request: offline, unreachable, rate-limited, unavailable, or the API's message */
export function errorText (err, fallback = 'Something went wrong. Please try again.') {
  if (!err || typeof err.status !== 'number') {
    // fetch rejects with a TypeError when no answer came back at all
    return navigator.onLine === false ? OFFLINE_TEXT : 'The server could not be reached. Check your connection and try again.'
  }
  if (err.status === 429) return `Too many requests. Try again ${retryWhen(err.retryAfter)}.`
  if (err.status === 503) return UNAVAILABLE_TEXT
  if (err.status >= 500) return fallback
  return err.body?.message ? `${err.body.message[0].toUpperCase()}${err.body.message.slice(1)}.` : fallback
}

/**
 * a loader for a card's list: fills `list` with render(item) for each item fetch() gives, `empty`
 * when there is none, or the error with a Try again button; returns the loader, to call again after a change
 */
export function listLoader (list, fetch, render, empty) {
  // loads may overlap (the first one and the one after an action): only the latest one draws
  let seq = 0
  const load = async () => {
    const mine = ++seq
    try {
      const { items } = await fetch()
      if (mine !== seq) return
      fill(list, items.length ? items.map(render) : h('li', { class: 'muted empty' }, empty))
    } catch (err) {
      if (mine !== seq) return
      const again = h('button', { type: 'button', class: 'button small' }, 'Try again')
      again.addEventListener('click', () => { list.setAttribute('aria-busy', 'true'); load() })
      fill(list, h('li', { class: 'muted empty' }, errorText(err), ' ', again))
    } finally {
      if (mine === seq) list.removeAttribute('aria-busy')
    }
  }
  return load
}
