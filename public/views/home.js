// The signed-in home: build a new report from the profile search, and the list of past reports.
import * as api from '../api.js'
import { revokedText } from '../revoked.js'
import { avatar, debounce, errorText, formatDateTime, h, plural, setTitle, SOURCE_NAMES, SOURCES, sourceBadge, statusBadge } from '../dom.js'
import { expectGeneration } from './report.js'
import { noCreditCard, outOfCredit, subscribed } from '../billing.js'

const MAX_PROFILES = 5
const PAGE = 10

function profileLine (p) {
  return h('span', { class: 'profile-line' },
    avatar(p, 'sm'),
    h('span', { class: 'profile-names' },
      h('span', { class: 'fullname' }, p.fullname || p.username),
      h('span', { class: 'username' }, `@${p.username}`)
    )
  )
}

function newReportCard ({ navigate, refreshUser, user }) {
  const blocked = outOfCredit(user)
  // at most one profile per source (DESIGN 3.3)
  const selected = new Map()
  const q = h('input', { type: 'search', id: 'profile-q', placeholder: 'Username or name, e.g. alex.rivera', autocomplete: 'off', 'aria-label': 'Search profiles' })
  const source = h('select', { id: 'profile-source', 'aria-label': 'Network' },
    h('option', { value: '' }, 'All networks'),
    SOURCES.map((s) => h('option', { value: s }, SOURCE_NAMES[s]))
  )
  const results = h('ul', { class: 'results', id: 'profile-results', 'aria-live': 'polite' })
  const chips = h('ul', { class: 'chips selected', id: 'selected-profiles' })
  const message = h('p', { class: 'form-error', role: 'alert' })
  const create = h('button', { type: 'button', class: 'button primary', id: 'create-report', disabled: true }, 'Create and generate report')
  let lastHits = []
  let searchSeq = 0

  const renderSelected = () => {
    chips.replaceChildren(...[...selected.values()].map((p) => h('li', { class: 'chip' },
      sourceBadge(p.source), h('span', null, `@${p.username}`),
      h('button', {
        type: 'button', class: 'chip-remove', 'aria-label': `Remove ${p.username}`,
        onClick: () => { selected.delete(p.source); renderSelected(); renderResults() }
      }, '×')
    )))
    if (!selected.size) chips.append(h('li', { class: 'muted' }, 'No profile chosen yet: search and add up to one per network.'))
    create.disabled = selected.size === 0 || blocked
  }

  const renderResults = () => {
    if (!lastHits.length) {
      results.replaceChildren(q.value.trim() ? h('li', { class: 'muted empty' }, 'No profile matches.') : '')
      return
    }
    results.replaceChildren(...lastHits.map((p) => {
      const chosen = selected.get(p.source)
      const same = chosen && chosen.username === p.username
      const full = !chosen && selected.size >= MAX_PROFILES
      const label = same ? 'Added' : chosen ? `Replace @${chosen.username}` : 'Add'
      return h('li', { class: 'result' },
        profileLine(p),
        sourceBadge(p.source),
        h('button', {
          type: 'button', class: `button small ${same ? 'ghost' : ''}`, disabled: same || full,
          onClick: () => { selected.set(p.source, p); renderSelected(); renderResults() }
        }, label)
      )
    }))
  }

  const search = async () => {
    const text = q.value.trim()
    const seq = ++searchSeq
    if (!text) { lastHits = []; renderResults(); return }
    results.classList.add('loading')
    try {
      const res = await api.searchProfiles(text, source.value || undefined, 10)
      if (seq !== searchSeq) return
      lastHits = res.items
      message.textContent = ''
      renderResults()
    } catch (err) {
      if (seq === searchSeq) message.textContent = errorText(err)
    } finally {
      if (seq === searchSeq) results.classList.remove('loading')
    }
  }
  const later = debounce(search, 250)
  q.addEventListener('input', later)
  source.addEventListener('change', search)

  create.addEventListener('click', async () => {
    message.textContent = ''
    create.disabled = true
    create.textContent = 'Creating…'
    let report
    try {
      report = await api.createReport([...selected.values()].map((p) => ({ source: p.source, username: p.username })))
    } catch (err) {
      message.textContent = errorText(err)
      create.disabled = false
      create.textContent = 'Create and generate report'
      return
    }
    try {
      await api.generateReport(report.id)
      expectGeneration(report.id)
      refreshUser()
    } catch (err) {
      // the draft exists; its page offers to generate once the user has a credit
      if (err.status !== 402) message.textContent = errorText(err)
    }
    navigate(`#/report/${report.id}`)
  })

  renderSelected()
  return h('section', { class: 'card', id: 'new-report' },
    h('h2', null, 'New report'),
    h('p', { class: 'muted' }, 'Find the person on each network they use; one report covers up to five profiles.'),
    h('form', { class: 'search', role: 'search', onSubmit: (e) => { e.preventDefault(); search() } }, q, source),
    results,
    h('h3', { class: 'subhead' }, 'In this report'),
    chips,
    message,
    h('div', { class: 'actions' }, create)
  )
}

function reportListCard () {
  const list = h('ul', { class: 'report-list', id: 'report-list', 'aria-busy': 'true' }, h('li', { class: 'muted loading' }, 'Loading your reports…'))
  const more = h('button', { type: 'button', class: 'button ghost', hidden: true }, 'Show older reports')
  const message = h('p', { class: 'form-error', role: 'alert' })
  let offset = 0

  const row = (r) => {
    const names = r.profiles.map((p) => p.fullname || p.username)
    const unique = [...new Set(names)]
    return h('li', null, h('a', { class: 'report-row', href: `#/report/${encodeURIComponent(r.id)}` },
      h('span', { class: 'stack' }, r.profiles.slice(0, 3).map((p) => avatar(p, 'sm'))),
      h('span', { class: 'report-row-main' },
        h('span', { class: 'fullname' }, unique.join(', ')),
        h('span', { class: 'muted small' }, r.profiles.map((p) => `${SOURCE_NAMES[p.source]} @${p.username}`).join(' · '))
      ),
      h('span', { class: 'report-row-meta' },
        statusBadge(r.status),
        h('span', { class: 'muted small' }, formatDateTime(r.generatedAt ?? r.createdAt))
      )
    ))
  }

  const load = async () => {
    more.disabled = true
    try {
      const page = await api.listReports(offset, PAGE)
      if (offset === 0) list.replaceChildren()
      list.removeAttribute('aria-busy')
      if (offset === 0 && !page.items.length) list.replaceChildren(h('li', { class: 'muted empty' }, 'No reports yet. Your reports will be listed here.'))
      else list.append(...page.items.map(row))
      offset += page.items.length
      more.hidden = !page.hasMore
      counter.textContent = page.total ? `(${page.total})` : ''
    } catch (err) {
      if (offset === 0) list.replaceChildren()
      list.removeAttribute('aria-busy')
      message.replaceChildren(errorText(err), ' ', h('button', { type: 'button', class: 'link', id: 'reports-retry', onClick: () => { message.replaceChildren(); load() } }, 'Try again'))
    } finally {
      more.disabled = false
    }
  }
  const counter = h('span', { class: 'muted count' })
  more.addEventListener('click', load)
  load()
  return h('section', { class: 'card', id: 'reports' },
    h('h2', null, 'Your reports ', counter),
    list, message, h('div', { class: 'actions' }, more)
  )
}

export function homeView (ctx) {
  const user = ctx.user
  setTitle('Your reports')
  const credits = user && !outOfCredit(user)
    ? h('p', { class: 'muted credits-line' }, subscribed(user)
      ? 'Your subscription covers report generation.'
      : `You have ${plural(user.reportCredits, 'report credit')}. Generating a report uses one.`)
    : null
  const notice = ctx.flash?.passwordReset
    ? h('div', { class: 'notice ok', role: 'status', id: 'password-reset-notice' },
      h('p', null, 'Your new password is set, and you are signed in with it.'),
      ctx.flash.revoked ? h('p', { id: 'password-reset-revoked' }, revokedText(ctx.flash.revoked), ' ', h('a', { href: '#/account' }, 'Your account')) : null)
    : null
  return {
    node: h('div', { class: 'home' },
      notice,
      outOfCredit(user) ? noCreditCard({ ...ctx, refreshUser: ctx.reload }) : null,
      h('div', { class: 'home-grid' },
        h('div', null, newReportCard(ctx), credits),
        reportListCard()
      )
    )
  }
}
