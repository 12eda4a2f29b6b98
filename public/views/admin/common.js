// What the staff console's pages share: their tabs, their hash addresses (#/admin/users?q=…), their
// lists read a page at a time with a pager, and the page that stands in for one when the API refuses
// the staff member (a session without a second factor, a role taken away).
import { errorText, fill, h } from '../../dom.js'

export const PAGE = 20

/** whether the account may open the console: the API refuses everyone else (docs/operations.md, Support) */
export const isStaff = (user) => user?.role === 'support' || user?.role === 'admin'
export const isAdmin = (user) => user?.role === 'admin'

/** the query of a hash address: #/admin/users?q=ali&offset=20 -> {q: 'ali', offset: '20'} */
export function hashParams (hash) {
  const at = hash.indexOf('?')
  return at < 0 ? {} : Object.fromEntries(new URLSearchParams(hash.slice(at + 1)))
}

/** a hash address with these parameters, the empty ones left out */
export function hashWith (path, params) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '' && !(k === 'offset' && Number(v) === 0)) q.set(k, String(v))
  const s = q.toString()
  return s ? `${path}?${s}` : path
}

/** the last search this page showed, where an account's page goes back to */
let lastSearch = '#/admin/users'
export const rememberSearch = (hash) => { lastSearch = hash }
export const searchHash = () => lastSearch

export const offsetOf = (params) => Math.max(0, Math.floor(Number(params.offset) || 0))

const TABS = [['overview', '#/admin', 'Overview'], ['users', '#/admin/users', 'Users'], ['audit', '#/admin/audit', 'Audit log']]

/** the console's own navigation, `current` marked as the page on screen */
export function adminTabs (current) {
  return h('nav', { class: 'admin-tabs', 'aria-label': 'Staff console' },
    TABS.map(([key, href, label]) => h('a', { class: 'admin-tab', href, id: `admin-tab-${key}`, 'aria-current': key === current ? 'page' : null }, label)))
}

const isSecondFactorRequired = (err) => err?.status === 403 && /second factor required/i.test(err?.body?.message ?? '')

/**
 * what a refused read of the console shows instead of its page: the way to a second factor, or that
 * the account is not staff (any more), or the API's message with a Try again
 */
export function refusal (err, retry) {
  if (isSecondFactorRequired(err)) {
    return h('div', { class: 'card notice-card', id: 'admin-second-factor', role: 'alert' },
      h('h2', null, 'Set up a second factor first'),
      h('p', null, 'The staff console needs a sign-in with two steps. Set up an authenticator app or a passkey on your account page; the console opens once your session has proved it.'),
      h('p', null, h('a', { class: 'button primary', href: '#/account', id: 'admin-second-factor-link' }, 'Go to your account page')))
  }
  if (err?.status === 403) {
    return h('div', { class: 'card', id: 'admin-denied', role: 'alert' },
      h('h2', null, 'Not for this account'),
      h('p', null, 'The staff console is for support and admin staff. Ask an admin if you need it.'))
  }
  // a 400 (a filter that is not an id, say) answers the same however often it is sent
  const again = err?.status === 400 ? null : h('button', { type: 'button', class: 'button small' }, 'Try again')
  again?.addEventListener('click', retry)
  return h('div', { class: 'card', id: 'admin-error', role: 'alert' }, h('p', { class: 'form-error' }, errorText(err)), again)
}

/** "21–40 of 95" with Previous and Next, which go to the offset they name */
export function pager (page, offset, limit, go, label) {
  const count = page.items.length
  const prev = h('button', { type: 'button', class: 'button small', id: `${label}-prev`, disabled: offset === 0 }, 'Previous')
  const next = h('button', { type: 'button', class: 'button small', id: `${label}-next`, disabled: !page.hasMore }, 'Next')
  prev.addEventListener('click', () => go(Math.max(0, offset - limit)))
  next.addEventListener('click', () => go(offset + limit))
  const range = count ? `${offset + 1}–${offset + count} of ${page.total}` : `${page.total} in all`
  return h('div', { class: 'pager', id: `${label}-pager` }, prev, h('span', { class: 'muted small', role: 'status' }, range), next)
}

/**
 * A list read a page at a time, from `offset`: `read(limit)` fetches the page, `row` shows each item
 * (`empty` when there is none), and the pager under it (returned, for the page to place) goes to
 * another offset through `go`; a refused read shows refusal() in the list. Reads at once.
 */
export function pagedList ({ list, offset, read, row, empty, go, label }) {
  const foot = h('div')
  const load = async () => {
    list.setAttribute('aria-busy', 'true')
    try {
      const page = await read(PAGE)
      fill(list, page.items.length ? page.items.map(row) : h('li', { class: 'muted empty' }, empty))
      fill(foot, page.total > PAGE || offset > 0 ? pager(page, offset, PAGE, go, label) : null)
    } catch (err) {
      fill(list, h('li', null, refusal(err, load)))
    } finally {
      list.removeAttribute('aria-busy')
    }
  }
  load()
  return foot
}

/** a short id to show where the whole one is in the link and its title */
export const shortId = (id) => (id ?? '').slice(0, 8)
