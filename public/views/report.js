// One report: generation progress (a stepper, live from the event stream), then its ReportItems:
// one person across networks side by side, then one tab per network when the report covers several
// profiles. Every network's panel is built at once (hidden but for the selected one), so each keeps
// its state and a print has them all.
import * as api from '../api.js'
import { avatar, errorText, fill, formatDateTime, formatMonth, h, plural, setTitle, SOURCE_NAMES, statusBadge } from '../dom.js'
import { noCreditOptions, outOfCredit, subscribed } from '../billing.js'
import { watchReport } from '../progress.js'
import { createStepper } from '../charts/stepper.js'
import { networkBars } from '../charts/network-bars.js'
import { exportActions } from './export.js'
import { createInterestDetail } from './interest-detail.js'
import { categoriesSection, profileHeader, redFlagsSection, topInterestsSection } from './sections.js'
import { friendsSection } from './friends.js'
import { diffsSection } from './diffs.js'
import { watchToggle } from './watch.js'

function itemPanel (reportId, item, detail) {
  return h('div', { class: 'item', dataset: { source: item.source } },
    profileHeader(item),
    h('div', { class: 'item-grid' },
      categoriesSection(item, detail),
      h('div', { class: 'column' }, topInterestsSection(item, detail), redFlagsSection(item, detail))
    ),
    friendsSection(reportId, item, detail),
    diffsSection(reportId, item, detail)
  )
}

function itemsView (reportId, items, detail) {
  if (!items.length) return h('p', { class: 'muted empty' }, 'This report has no profile data.')
  if (items.length === 1) return itemPanel(reportId, items[0], detail)
  const panels = new Map(items.map((item) => [item.source, h('div', {
    role: 'tabpanel', class: 'item-panel', id: `item-panel-${item.source}`, 'aria-labelledby': `tab-${item.source}`
  }, itemPanel(reportId, item, detail))]))
  const tabs = items.map((item) => h('button', {
    type: 'button', role: 'tab', class: 'tab source-tab', id: `tab-${item.source}`, 'aria-controls': `item-panel-${item.source}`, 'aria-selected': 'false',
    title: `${SOURCE_NAMES[item.source]}: @${item.username}`, onClick: () => select(item.source)
  }, avatar(item, 'xs'), h('span', null, SOURCE_NAMES[item.source]), h('span', { class: 'muted tab-user' }, `@${item.username}`)))
  const select = (source) => {
    for (const t of tabs) {
      const on = t.id === `tab-${source}`
      t.setAttribute('aria-selected', String(on))
      t.tabIndex = on ? 0 : -1
    }
    for (const [s, panel] of panels) panel.hidden = s !== source
  }
  const tablist = h('div', { class: 'tabs source-tabs', role: 'tablist', 'aria-label': 'Profiles' }, tabs)
  // arrow keys move between the tabs, as a tab list does
  tablist.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key]
    if (!step) return
    const n = tabs.indexOf(document.activeElement)
    if (n < 0) return
    const next = tabs[(n + step + tabs.length) % tabs.length]
    next.focus()
    next.click()
  })
  select(items[0].source)
  return h('div', null, networkBars(items), tablist, ...panels.values())
}

// Reports whose generation this page just asked for: their page goes straight to the event stream,
// which gives the current state on connect, rather than reading a report that may not be queued yet.
const justGenerated = new Set()
export function expectGeneration (reportId) { justGenerated.add(reportId) }

export function reportView (ctx) {
  const { reportId, navigate, refreshUser } = ctx
  const detail = createInterestDetail(reportId)
  setTitle('Report')
  const head = h('div', { class: 'report-head' })
  const body = h('div', { class: 'report-body', 'aria-live': 'polite', 'aria-busy': 'true' },
    h('p', { class: 'muted loading-report', role: 'status' }, 'Loading the report…'))
  const message = h('p', { class: 'form-error', role: 'alert' })
  // the status badge follows the stream while the report generates
  const statusSlot = h('span', { id: 'report-status' })
  const setStatus = (status) => statusSlot.replaceChildren(statusBadge(status))
  let stop = () => {}
  let progress = null
  let disposed = false
  let foldTimer = null

  const header = (report, profiles) => {
    const names = [...new Set(profiles.map((p) => p.fullname || p.username))]
    const del = h('button', { type: 'button', class: 'button ghost small danger' }, 'Delete')
    del.addEventListener('click', async () => {
      if (!confirm('Delete this report? This cannot be undone.')) return
      try {
        await api.deleteReport(reportId)
        navigate('#/')
      } catch (err) { message.textContent = errorText(err) }
    })
    const title = names.join(', ') || 'Report'
    setTitle(names.length ? `${title}: report` : 'Report')
    fill(head,
      h('a', { href: '#/', class: 'back' }, '← All reports'),
      h('div', { class: 'report-title-row' },
        h('h1', { class: 'report-title' }, title),
        statusSlot
      ),
      h('p', { class: 'muted small report-meta' },
        report.generatedAt ? `Generated ${formatDateTime(report.generatedAt)}` : report.createdAt ? `Created ${formatDateTime(report.createdAt)}` : '',
        h('span', { class: 'meta-sep', 'aria-hidden': 'true' }, ' · '),
        del
      ),
      report.status === 'ready' ? exportActions(reportId, message) : null,
      report.status === 'ready' ? watchToggle(ctx, reportId) : null,
      message
    )
    setStatus(report.status)
  }

  const generateButton = (label) => {
    const button = h('button', { type: 'button', class: 'button primary', id: 'generate-report' }, label)
    button.addEventListener('click', async () => {
      button.disabled = true
      message.textContent = ''
      try {
        await api.generateReport(reportId)
        refreshUser()
        load(true)
      } catch (err) {
        // the credits were spent since the page was drawn: draw it again, with what gives one
        if (err.status === 402) return ctx.reload()
        message.textContent = errorText(err)
        button.disabled = false
      }
    })
    return button
  }

  const showReady = (report) => {
    body.setAttribute('aria-busy', 'false')
    body.replaceChildren(...[progress?.node, itemsView(reportId, report.items, detail)].filter(Boolean))
    // the finished stepper is seen complete for a moment, then folds away above the report
    if (progress) foldTimer = setTimeout(() => progress.fold(), 1200)
    if (ctx.focus) showChanges(ctx.focus, report)
  }

  // an alert's link: that network's tab, its changes in view and focused, the alert's month marked
  const showChanges = ({ source, month }, report) => {
    document.getElementById(`tab-${source}`)?.click()
    const section = document.getElementById(`section-diffs-${source}`)
    if (!section) return
    section.tabIndex = -1
    const shown = section.querySelector(`li.month[data-month="${month}"]`)
    const newest = section.querySelector('li.month')?.dataset.month ?? ''
    if (shown) shown.classList.add('month-alerted')
    else if (month > newest) {
      // A report covers up to the later of its generation's month and its newest change, and a report
      // generated now covers the alert's month (the engine's one rule raised it;
      // docs/decisions/watches-and-alerts.md, Watches and alerts). A month after the newest shown
      // is not past the preview: had its changes been in the data, the report would show them
      // first. So one of two things is true, and said.
      const covered = [newest, (report?.generatedAt ?? '').slice(0, 7)].reduce((a, b) => (b > a ? b : a), '')
      const text = month > covered
        ? `This report covers up to ${formatMonth(covered)}; ${formatMonth(month)} came later. The alert lists that month's changes, and a report generated now on these profiles shows them.`
        : `The changes of ${formatMonth(month)} reached the data after this report was generated. The alert lists them, and a report generated now on these profiles shows them.`
      section.querySelector('.section-head')?.after(h('p', { class: 'notice', id: 'alert-month-note' }, text))
    }
    section.scrollIntoView({ block: 'start' })
    section.focus({ preventScroll: true })
  }

  // With no credit left the button would only fail: the card offers what gives a credit instead,
  // and once a code is applied the page is drawn again with the new count (ctx.reload).
  const showNotGenerated = (failed) => {
    body.setAttribute('aria-busy', 'false')
    const blocked = outOfCredit(ctx.user)
    fill(body, failed ? progress?.node : null, h('section', { class: 'card center', id: failed ? 'report-failed' : 'report-draft' },
      h('h3', null, failed ? 'Generation failed' : 'Not generated yet'),
      blocked
        ? h('div', { class: 'no-credit-options', id: 'draft-no-credit' },
          h('p', { class: 'muted' }, failed
            ? 'The report could not be generated. You have no report credit left to generate it again.'
            : 'You have no report credit left to generate it.'),
          noCreditOptions(ctx, 'draft-credit', ctx.reload))
        : [
            h('p', { class: 'muted' }, failed
              ? 'The report could not be generated and your credit was returned. You can generate it again.'
              : !ctx.user ? 'Generating the report uses one report credit.'
                  : subscribed(ctx.user) ? 'Your subscription covers generating it.'
                    : `Generating the report uses one of your ${plural(ctx.user.reportCredits, 'report credit')}.`),
            generateButton(failed ? 'Generate again' : 'Generate report')
          ]
    ))
  }

  const watch = (initial) => {
    progress = createStepper()
    progress.set(initial)
    body.replaceChildren(progress.node)
    stop = watchReport(reportId, {
      onStatus: (status) => {
        // an older update than the one shown changes nothing, the badge included
        if (progress.set(status)) setStatus(status.status)
      },
      onTransport: (transport) => { progress.node.dataset.transport = transport },
      onDone: async (done) => {
        progress.set({ status: done.status, progress: done.status === 'ready' ? 100 : undefined })
        if (done.status !== 'ready') return load()
        try {
          const ready = await api.getReport(reportId)
          if (!disposed) { header(ready, ready.items); showReady(ready) }
        } catch (err) { message.textContent = errorText(err) }
      }
    })
  }

  const load = async (afterGenerate = justGenerated.delete(reportId)) => {
    if (afterGenerate) {
      progress = null
      const summary = await api.reportSummary(reportId).catch(() => ({ profiles: [], createdAt: null }))
      header({ status: 'queued', createdAt: summary.createdAt }, summary.profiles)
      return watch({ status: 'queued', progress: 0, stage: 'queued' })
    }
    let report
    try {
      report = await api.getReport(reportId)
    } catch (err) {
      head.replaceChildren(h('a', { href: '#/', class: 'back' }, '← All reports'))
      setTitle(err.status === 404 ? 'Report not found' : 'Report')
      body.setAttribute('aria-busy', 'false')
      body.replaceChildren(h('section', { class: 'card center', id: 'report-error' },
        h('p', { class: 'form-error' }, err.status === 404 ? 'This report does not exist.' : err.status === 403 ? 'This report belongs to another account.' : errorText(err)),
        err.status === 404 || err.status === 403 ? null : h('button', { type: 'button', class: 'button', onClick: () => load(false) }, 'Try again')
      ))
      return
    }
    if (disposed) return
    const profiles = report.items.length ? report.items : (await api.reportSummary(reportId).catch(() => ({ profiles: [] }))).profiles
    header(report, profiles)
    if (report.status === 'ready') return showReady(report)
    if (report.status === 'draft' || report.status === 'failed') return showNotGenerated(report.status === 'failed')
    watch(report)
  }

  load()
  return {
    node: h('div', { class: 'report' }, head, body, detail.dialog),
    dispose: () => { disposed = true; clearTimeout(foldTimer); stop() }
  }
}
