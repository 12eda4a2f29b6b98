// One person across networks, side by side: for each measure (categories, interests, red flags) a
// bar per network, each measure on its own scale (a few red flags next to hundreds of interests would
// vanish on a shared one). The network's name is written on every bar: colour is never the only key.
import { h, SOURCE_NAMES } from '../dom.js'
import { dataTable, hatchDefs, pct, s, uniqueId } from './svg.js'

const ROW = 34

const MEASURES = [
  ['categories', 'Categories', (i) => i.categoriesCount],
  ['interests', 'Interests', (i) => i.totalInterests],
  ['flags', 'Red flags', (i) => i.redFlags?.length ?? 0]
]

export function networkBars (items) {
  const hatch = uniqueId('hatch')
  const panels = MEASURES.map(([key, title, value]) => {
    const max = Math.max(1, ...items.map(value))
    const svg = s('svg', { class: `chart chart-networks chart-${key}`, width: '100%', height: items.length * ROW, 'aria-hidden': 'true' },
      key === 'flags' ? hatchDefs(hatch) : null,
      items.map((item, n) => {
        const v = value(item)
        return s('g', { class: 'chart-row' },
          s('text', { class: 'chart-label', x: 0, y: n * ROW + 12 }, SOURCE_NAMES[item.source]),
          s('text', { class: 'chart-value', x: '100%', y: n * ROW + 12, 'text-anchor': 'end' }, String(v)),
          s('rect', { class: 'track', x: 0, y: n * ROW + 17, width: '100%', height: 12, rx: 4 }),
          s('rect', {
            // red flags are hatched on every network (a CSS fill would hide the pattern)
            class: `mark mark-network ${key === 'flags' ? 'mark-flag' : `net-${item.source}`}`,
            x: 0, y: n * ROW + 17, width: v ? pct(v / max) : 2, height: 12, rx: 4,
            fill: key === 'flags' && v ? `url(#${hatch})` : null
          }, s('title', null, `${SOURCE_NAMES[item.source]}: ${v}`))
        )
      })
    )
    return h('div', { class: 'network-panel' }, h('h4', null, title), svg)
  })
  return h('section', { class: 'card', id: 'section-networks' },
    h('div', { class: 'section-head' }, h('h3', null, 'Across networks')),
    h('figure', { class: 'chart-figure' },
      h('div', { class: 'network-panels', role: 'img', 'aria-label': summary(items) }, panels),
      dataTable('One person across networks', ['Network', 'Categories', 'Interests', 'Red flags'],
        items.map((i) => [`${SOURCE_NAMES[i.source]} (@${i.username})`, ...MEASURES.map(([, , value]) => String(value(i)))]))
    )
  )
}

function summary (items) {
  return `Across networks: ${items.map((i) => `${SOURCE_NAMES[i.source]} ${i.categoriesCount} categories, ${i.totalInterests} interests, ${i.redFlags?.length ?? 0} red flags`).join('; ')}`
}
