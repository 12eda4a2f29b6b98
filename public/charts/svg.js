// What every chart shares: SVG elements built as DOM nodes (text goes in as text nodes, never as
// markup), the hatch that marks red flags without relying on colour, keyboard activation of a mark,
// and the table each chart carries as its text alternative.
import { h } from '../dom.js'

const NS = 'http://www.w3.org/2000/svg'

/** s('rect', {x, y, class}, ...children): an SVG element; attributes are set as given */
export function s (tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue
    el.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : String(child))
  }
  return el
}

let uid = 0
/** an id unique in the page: several charts of the same kind live in the page at once (one per tab) */
export const uniqueId = (prefix) => `${prefix}-${++uid}`

/** a <defs> with the diagonal hatch used on every red-flag mark */
export function hatchDefs (id) {
  return s('defs', null,
    s('pattern', { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      s('rect', { width: 6, height: 6, class: 'hatch-bg' }),
      s('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'hatch-line' })
    )
  )
}

/** makes a mark a button: focusable, named, and opened by click, Enter or Space */
export function interactive (el, label, onActivate) {
  el.setAttribute('tabindex', '0')
  el.setAttribute('role', 'button')
  el.setAttribute('aria-label', label)
  el.classList.add('chart-button')
  // the pointer's tooltip says what the name says
  el.prepend(s('title', null, label))
  el.addEventListener('click', onActivate)
  el.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return
    event.preventDefault()
    onActivate()
  })
  return el
}

/** the chart's data as a table, folded under a summary: the text alternative */
export function dataTable (caption, head, rows) {
  return h('details', { class: 'chart-table' },
    h('summary', null, 'Show the data as a table'),
    h('table', null,
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', null, h('tr', null, head.map((c, n) => h('th', { scope: 'col', class: n ? 'num' : '' }, c)))),
      h('tbody', null, rows.map((r) => h('tr', null, r.map((c, n) => n ? h('td', { class: 'num' }, c) : h('th', { scope: 'row' }, c)))))
    )
  )
}

/** a legend line: a swatch per series and its name (the swatch is decoration, the name is the text) */
export function legend (entries) {
  return h('ul', { class: 'chart-legend' }, entries.map(([cls, label]) => h('li', null,
    h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), label
  )))
}

/** a number as a percentage of the SVG's width, for attributes (x, width) that take one */
export const pct = (fraction) => `${(Math.max(0, Math.min(1, fraction)) * 100).toFixed(3)}%`
