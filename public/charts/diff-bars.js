// Month-by-month changes as a diverging bar chart: new interests above the line, lost ones below,
// oldest month on the left. Both directions share one scale, so heights compare. A month's column
// opens that month's lists.
import { formatMonth, h } from '../dom.js'
import { dataTable, interactive, legend, pct, s } from './svg.js'

const HALF = 80
const TOP = 8
const LABELS = 14

const short = new Intl.DateTimeFormat(undefined, { month: 'short', year: '2-digit', timeZone: 'UTC' })
function shortMonth (yyyyMm) {
  const [y, m] = yyyyMm.split('-').map(Number)
  return short.format(new Date(Date.UTC(y, m - 1, 1)))
}

const monthNumber = (yyyyMm) => { const [y, m] = yyyyMm.split('-').map(Number); return y * 12 + m - 1 }
const monthText = (n) => `${Math.floor(n / 12)}-${String(n % 12 + 1).padStart(2, '0')}`

/** months: DiffItems newest first, as the API serves them (months without a change are left out) */
export function diffBars (months, { source, onSelect }) {
  const byMonth = new Map(months.map((d) => [d.date, d]))
  const first = monthNumber(months.at(-1).date)
  const last = monthNumber(months[0].date)
  // the axis is time: the months without a change keep their place, as empty slots
  const slots = last - first < 240
    ? Array.from({ length: last - first + 1 }, (_, i) => monthText(first + i))
    : [...months].reverse().map((d) => d.date)
  const n = slots.length
  const max = Math.max(1, ...months.map((d) => Math.max(d.totalNew, d.totalLost)))
  const base = TOP + HALF
  // at most eight month labels, counted back from the newest so the last two never crowd each other;
  // on a phone every other one is hidden (.chart-tick-minor), as eight do not fit its width
  const every = Math.ceil(n / 8)
  const ticks = new Map()
  for (let i = n - 1, k = 0; i >= 0; i -= every, k++) ticks.set(i, k % 2 === 1)
  const thin = ticks.size > 4
  const svg = s('svg', {
    class: 'chart chart-diffs', id: `chart-diffs-${source}`, width: '100%', height: base + HALF + LABELS + 14,
    role: 'group', 'aria-label': `New and lost interests by month, ${months.length} months with changes`
  })
  // a few months do not make bars a hand wide
  svg.style.maxWidth = `${Math.max(240, n * 56)}px`
  const columns = []
  slots.forEach((date, i) => {
    const slot = 1 / n
    if (ticks.has(i)) {
      svg.append(s('text', { class: thin && ticks.get(i) ? 'chart-tick chart-tick-minor' : 'chart-tick', x: pct((i + 0.5) * slot), y: base + HALF + LABELS, 'text-anchor': 'middle', 'aria-hidden': 'true' }, shortMonth(date)))
    }
    const d = byMonth.get(date)
    if (!d) return
    const x = (i + 0.18) * slot
    const w = slot * 0.64
    const up = d.totalNew ? Math.max(2, HALF * d.totalNew / max) : 0
    const down = d.totalLost ? Math.max(2, HALF * d.totalLost / max) : 0
    const label = `${formatMonth(d.date)}: ${d.totalNew} new, ${d.totalLost} lost. Show the lists`
    const col = s('g', { class: 'chart-col', 'data-month': d.date, 'aria-pressed': 'false' },
      s('rect', { class: 'hit', x: pct(i * slot), y: 0, width: pct(slot), height: base + HALF + 4, rx: 4 }),
      up ? s('rect', { class: 'mark mark-new', x: pct(x), y: base - up, width: pct(w), height: up }) : null,
      down ? s('rect', { class: 'mark mark-lost', x: pct(x), y: base, width: pct(w), height: down }) : null
    )
    columns.push(col)
    svg.append(interactive(col, label, () => select(d.date)))
  })
  svg.append(s('line', { class: 'baseline', x1: 0, x2: '100%', y1: base, y2: base }))

  const select = (date) => {
    for (const c of columns) {
      const on = c.getAttribute('data-month') === date
      c.setAttribute('aria-pressed', String(on))
      c.classList.toggle('selected', on)
    }
    onSelect(date)
  }

  return h('figure', { class: 'chart-figure' },
    svg,
    h('figcaption', null,
      legend([['swatch-new', 'new interests (above the line)'], ['swatch-lost', 'lost interests (below)']]),
      h('p', { class: 'muted small' }, `The tallest bar is ${max} interests in a month; both directions share the scale.`)
    ),
    dataTable('New and lost interests by month', ['Month', 'New', 'Lost'],
      months.map((d) => [formatMonth(d.date), String(d.totalNew), String(d.totalLost)]))
  )
}
