// The month-by-month timeline of new and lost interests. The report carries a preview (6 months,
// 5 interests each way); the full timeline is paged from GET /report/{id}/diffs.
import * as api from '../api.js'
import { errorText, formatMonth, h } from '../dom.js'
import { interestName } from './interest-detail.js'

const PAGE = 6

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

export function diffsSection (reportId, item, detail) {
  const preview = item.interestDiffs?.items ?? []
  const timeline = h('ol', { class: 'timeline', id: `diffs-${item.source}` })
  const more = h('button', { type: 'button', class: 'button ghost small', id: `diffs-more-${item.source}` }, 'Show the full timeline')
  const message = h('p', { class: 'form-error', role: 'alert' })
  let offset = 0
  let full = false

  if (preview.length) timeline.append(...preview.map((d) => monthNode(d, detail)))
  else timeline.append(h('li', { class: 'muted empty' }, 'No change in interests over the months on record.'))
  more.hidden = preview.length === 0

  more.addEventListener('click', async () => {
    more.disabled = true
    message.textContent = ''
    try {
      const page = await api.diffs(reportId, { source: item.source, offset, limit: PAGE })
      if (!full) timeline.replaceChildren()
      full = true
      timeline.append(...page.items.map((d) => monthNode(d, detail)))
      offset += page.items.length
      more.hidden = !page.hasMore
      more.textContent = 'Show older months'
    } catch (err) {
      message.textContent = errorText(err)
    } finally {
      more.disabled = false
    }
  })

  return h('section', { class: 'card', id: `section-diffs-${item.source}` },
    h('div', { class: 'section-head' }, h('h3', null, 'Interest changes by month')),
    h('p', { class: 'muted small' }, 'Interests that appeared or disappeared each month, newest first. Greyed-out interests are no longer current.'),
    timeline, message,
    h('div', { class: 'actions' }, more)
  )
}
