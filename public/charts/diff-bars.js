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

/** months: DiffItems newest first, as the API serves them */
export function diffBars (months, { source, onSelect }) {
  const ordered = [...months].reverse()
  const n = ordered.length
  const max = Math.max(1, ...ordered.map((d) => Math.max(d.totalNew, d.totalLost)))
  const base = TOP + HALF
  const every = Math.ceil(n / 8)
  const svg = s('svg', {
    class: 'chart chart-diffs', id: `chart-diffs-${source}`, width: '100%', height: base + HALF + LABELS + 14,
    role: 'group', 'aria-label': `New and lost interests by month, ${n} months`
  })
  const columns = []
  ordered.forEach((d, i) => {
    const slot = 1 / n
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
    if (i % every === 0 || i === n - 1) {
      svg.append(s('text', { class: 'chart-tick', x: pct((i + 0.5) * slot), y: base + HALF + LABELS, 'text-anchor': 'middle', 'aria-hidden': 'true' }, shortMonth(d.date)))
    }
    columns.push(col)
    svg.append(interactive(col, label, () => select(d.date)))
  })
  svg.append(s('line', { class: 'baseline', x1: 0, x2: '100%', y1: base, y2: base }))
  svg.append(s('text', { class: 'chart-axis', x: 2, y: TOP + 10, 'aria-hidden': 'true' }, `+${max}`))
  svg.append(s('text', { class: 'chart-axis', x: 2, y: base + HALF, 'aria-hidden': 'true' }, `−${max}`))

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
    h('figcaption', null, legend([['swatch-new', 'new interests (above the line)'], ['swatch-lost', 'lost interests (below)']])),
    dataTable('New and lost interests by month', ['Month', 'New', 'Lost'],
      months.map((d) => [formatMonth(d.date), String(d.totalNew), String(d.totalLost)]))
  )
}
