// The month-by-month changes of interests: a diverging bar chart over every month (a column opens
// that month's full lists), then the timeline. The report carries a preview (6 months, 5 interests
// each way); every month is read from GET /report/{id}/diffs for the chart, so "Show the full
// timeline" is offered only when that shows more than the preview.
import * as api from '../api.js'
import { errorText, formatMonth, h } from '../dom.js'
import { interestName } from './interest-detail.js'
import { diffBars } from '../charts/diff-bars.js'

const PAGE = 100

function changeGroup (kind, interests, total, detail) {
  if (!total) return null
  const more = total - interests.length
  return h('div', { class: `change change-${kind}` },
    h('span', { class: 'change-label' }, kind === 'new' ? `+ ${total} new` : `− ${total} lost`),
    h('span', { class: 'change-items' },
      interests.map((i) => interestName(i, detail, `pill pill-${kind}`)),
      more > 0 ? h('span', { class: 'pill pill-more' }, `+${more} more`) : null
    )
  )
}

function monthNode (d, detail) {
  return h('li', { class: 'month', dataset: { month: d.date } },
    h('span', { class: 'month-dot', 'aria-hidden': 'true' }),
    h('div', { class: 'month-body' },
      h('h4', { class: 'month-label' }, h('time', { datetime: d.date }, formatMonth(d.date))),
      changeGroup('new', d.new, d.totalNew, detail),
      changeGroup('lost', d.lost, d.totalLost, detail)
    )
  )
}

/** every month of the timeline, newest first (pages of 100: months, so rarely more than one) */
async function allMonths (reportId, source) {
  const months = []
  for (;;) {
    const page = await api.diffs(reportId, { source, offset: months.length, limit: PAGE })
    months.push(...page.items)
    if (!page.hasMore || page.items.length === 0) return months
  }
}

function monthLists (d, detail) {
  return h('div', { class: 'month-panel-body' },
    h('h4', null, h('time', { datetime: d.date }, formatMonth(d.date))),
    changeGroup('new', d.new, d.totalNew, detail),
    changeGroup('lost', d.lost, d.totalLost, detail)
  )
}

export function diffsSection (reportId, item, detail) {
  const preview = item.interestDiffs?.items ?? []
  const timeline = h('ol', { class: 'timeline', id: `diffs-${item.source}` })
  const more = h('button', { type: 'button', class: 'button ghost small', id: `diffs-more-${item.source}`, hidden: true }, 'Show the full timeline')
  const message = h('p', { class: 'form-error', role: 'alert' })
  const chart = h('div', { class: 'chart-slot' })
  const panel = h('div', { class: 'month-panel', id: `diffs-month-${item.source}`, 'aria-live': 'polite', hidden: true })
  let months = null

  if (preview.length) {
    timeline.append(...preview.map((d) => monthNode(d, detail)))
    chart.append(h('p', { class: 'muted small', role: 'status' }, 'Loading the chart…'))
    allMonths(reportId, item.source).then((all) => {
      months = all
      chart.replaceChildren(diffBars(all, {
        source: item.source,
        onSelect: (date) => {
          const d = all.find((m) => m.date === date)
          panel.replaceChildren(monthLists(d, detail))
          panel.hidden = false
        }
      }))
      // more to see: older months than the preview, or a month the preview cut
      const cut = preview.some((d) => d.new.length < d.totalNew || d.lost.length < d.totalLost)
      more.hidden = !(all.length > preview.length || cut)
    }, (err) => {
      chart.replaceChildren(h('p', { class: 'form-error' }, `The chart could not be loaded. ${errorText(err)}`))
    })
  } else {
    timeline.append(h('li', { class: 'muted empty' }, 'No change in interests over the months on record.'))
  }

  more.addEventListener('click', () => {
    if (!months) return
    timeline.replaceChildren(...months.map((d) => monthNode(d, detail)))
    more.hidden = true
  })

  return h('section', { class: 'card', id: `section-diffs-${item.source}` },
    h('div', { class: 'section-head' }, h('h3', null, 'Interest changes by month')),
    preview.length ? chart : null,
    panel,
    h('p', { class: 'muted small' }, 'Interests that appeared or disappeared each month, newest first. Greyed-out interests are no longer current.'),
    timeline, message,
    h('div', { class: 'actions' }, more)
  )
}
