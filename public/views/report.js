// One report: generation progress (live from the event stream), then its ReportItems, one tab per
// network when the report covers several profiles.
import * as api from '../api.js'
import { avatar, errorText, formatDateTime, h, SOURCE_NAMES, statusBadge } from '../dom.js'
import { watchReport } from '../progress.js'
import { createInterestDetail } from './interest-detail.js'
import { categoriesSection, profileHeader, redFlagsSection, topInterestsSection } from './sections.js'
import { friendsSection } from './friends.js'
import { diffsSection } from './diffs.js'

const STAGES = {
  queued: 'Waiting for a worker',
  collecting: 'Collecting profile data',
  interests: 'Computing interests',
  friends: 'Comparing friends',
  diffs: 'Building the monthly timeline'
}

function progressCard () {
  const fill = h('span', { class: 'progress-fill' })
  const meter = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', 'aria-label': 'Report generation' }, fill)
  const label = h('p', { class: 'progress-label' })
  const value = h('strong', { class: 'progress-value' }, '0%')
  const node = h('section', { class: 'card progress-card', id: 'progress', dataset: { progress: '0', status: 'queued' } },
    h('div', { class: 'section-head' }, h('h3', null, 'Generating the report'), value),
    meter, label
  )
  let shown = 0
  const set = ({ status, progress, stage }) => {
    // the stream and the polling may interleave: the bar never goes back
    const p = status === 'ready' ? 100 : Math.max(shown, Math.min(100, Math.round(progress ?? 0)))
    shown = p
    fill.style.width = `${p}%`
    meter.setAttribute('aria-valuenow', String(p))
    value.textContent = `${p}%`
    node.dataset.progress = String(p)
    node.dataset.status = status
    node.classList.toggle('done', status === 'ready')
    node.classList.toggle('failed', status === 'failed')
    node.querySelector('h3').textContent = status === 'ready' ? 'Report ready' : status === 'failed' ? 'Generation failed' : 'Generating the report'
    label.textContent = status === 'ready'
      ? 'Every section below is up to date.'
      : status === 'failed'
        ? 'The report could not be generated. Your credit was returned; you can try again.'
        : STAGES[stage] ?? (status === 'queued' ? STAGES.queued : 'Working…')
  }
  return { node, set }
}

function itemPanel (reportId, item, detail) {
  return h('div', { class: 'item', dataset: { source: item.source } },
    profileHeader(item),
    h('div', { class: 'item-grid' },
      categoriesSection(item, detail),
      h('div', { class: 'column' }, topInterestsSection(item, detail), redFlagsSection(item, detail))
    ),
    friendsSection(reportId, item),
    diffsSection(reportId, item, detail)
  )
}

function itemsView (reportId, items, detail) {
  if (!items.length) return h('p', { class: 'muted empty' }, 'This report has no profile data.')
  if (items.length === 1) return itemPanel(reportId, items[0], detail)
  const panel = h('div', { role: 'tabpanel', id: 'item-panel' })
  const tabs = items.map((item) => h('button', {
    type: 'button', role: 'tab', class: 'tab source-tab', id: `tab-${item.source}`, 'aria-controls': 'item-panel', 'aria-selected': 'false',
    onClick: () => select(item.source)
  }, avatar(item, 'xs'), h('span', null, SOURCE_NAMES[item.source]), h('span', { class: 'muted tab-user' }, `@${item.username}`)))
  const cache = new Map()
  const select = (source) => {
    for (const t of tabs) t.setAttribute('aria-selected', String(t.id === `tab-${source}`))
    // each tab keeps its state (friends page, opened timeline) while the others are shown
    if (!cache.has(source)) cache.set(source, itemPanel(reportId, items.find((i) => i.source === source), detail))
    panel.replaceChildren(cache.get(source))
  }
  select(items[0].source)
  return h('div', null, h('div', { class: 'tabs source-tabs', role: 'tablist', 'aria-label': 'Profiles' }, tabs), panel)
}

// Reports whose generation this page just asked for: their page goes straight to the event stream,
// which gives the current state on connect, rather than reading a report that may not be queued yet.
const justGenerated = new Set()
export function expectGeneration (reportId) { justGenerated.add(reportId) }

export function reportView ({ reportId, navigate, refreshUser }) {
  const detail = createInterestDetail(reportId)
  const head = h('div', { class: 'report-head' })
  const body = h('div', { class: 'report-body', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading the report…'))
  const message = h('p', { class: 'form-error', role: 'alert' })
  // the status badge follows the stream while the report generates
  const statusSlot = h('span', { id: 'report-status' })
  const setStatus = (status) => statusSlot.replaceChildren(statusBadge(status))
  let stop = () => {}
  let progress = null
  let disposed = false

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
    head.replaceChildren(
      h('a', { href: '#/', class: 'back' }, '← All reports'),
      h('div', { class: 'report-title-row' },
        h('h1', { class: 'report-title' }, names.join(', ') || 'Report'),
        statusSlot
      ),
      h('p', { class: 'muted small' },
        report.generatedAt ? `Generated ${formatDateTime(report.generatedAt)} · ` : report.createdAt ? `Created ${formatDateTime(report.createdAt)} · ` : '',
        del
      ),
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
        message.textContent = err.status === 402
          ? 'You have no report credit left. A subscription or a promo code gives you more.'
          : errorText(err)
        button.disabled = false
      }
    })
    return button
  }

  const showReady = (report) => {
    body.replaceChildren(...[progress?.node, itemsView(reportId, report.items, detail)].filter(Boolean))
  }

  const watch = (initial) => {
    progress = progressCard()
    progress.set(initial)
    body.replaceChildren(progress.node)
    stop = watchReport(reportId, {
      onStatus: (status) => {
        progress.set(status)
        setStatus(status.status)
      },
      onTransport: (transport) => { progress.node.dataset.transport = transport },
      onDone: async (done) => {
        progress.set({ status: done.status, progress: done.status === 'ready' ? 100 : 0 })
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
      const summary = await api.reportSummary(reportId).catch(() => ({ profiles: [], createdAt: null }))
      header({ status: 'queued', createdAt: summary.createdAt }, summary.profiles)
      return watch({ status: 'queued', progress: 0, stage: 'queued' })
    }
    let report
    try {
      report = await api.getReport(reportId)
    } catch (err) {
      head.replaceChildren(h('a', { href: '#/', class: 'back' }, '← All reports'))
      body.replaceChildren(h('p', { class: 'form-error' }, err.status === 404 ? 'This report does not exist.' : err.status === 403 ? 'This report belongs to another account.' : errorText(err)))
      return
    }
    if (disposed) return
    const profiles = report.items.length ? report.items : (await api.reportSummary(reportId).catch(() => ({ profiles: [] }))).profiles
    header(report, profiles)
    if (report.status === 'ready') return showReady(report)
    if (report.status === 'draft' || report.status === 'failed') {
      const failed = report.status === 'failed'
      body.replaceChildren(h('section', { class: 'card center' },
        h('h3', null, failed ? 'Generation failed' : 'Not generated yet'),
        h('p', { class: 'muted' }, failed
          ? 'The report could not be generated and your credit was returned. You can try again.'
          : 'Generating the report uses one report credit.'),
        generateButton(failed ? 'Try again' : 'Generate report')
      ))
      return
    }
    watch(report)
  }

  load()
  return {
    node: h('div', { class: 'report' }, head, body, detail.dialog),
    dispose: () => { disposed = true; stop() }
  }
}
