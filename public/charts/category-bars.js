// Interest categories as sorted bars: each bar is the category's share of the profile's interests
// (scaled to the largest), its red-flag part hatched on top. A bar opens the category in the list.
import { h, percent } from '../dom.js'
import { dataTable, hatchDefs, interactive, legend, pct, s, uniqueId } from './svg.js'

const ROW = 38

/** the share of a category that comes from red-flag interests (the full tree has every interest) */
export const redShare = (category) => category.interests.reduce((sum, i) => sum + (i.redCatId ? i.share : 0), 0)

export function categoryBars (categories, { source, onSelect }) {
  const max = Math.max(...categories.map((c) => c.share), Number.EPSILON)
  const hatch = uniqueId('hatch')
  const flagged = categories.reduce((sum, c) => sum + redShare(c), 0)
  const svg = s('svg', {
    class: 'chart chart-categories', id: `chart-categories-${source}`, width: '100%', height: categories.length * ROW,
    role: 'group', 'aria-label': `Share of interests by category, ${categories.length} categories`
  }, hatchDefs(hatch))
  const labels = []
  categories.forEach((c, n) => {
    const y = n * ROW
    const red = redShare(c)
    const label = `${c.name}: ${percent(c.share)} of interests${red > 0 ? `, ${percent(red)} red flags` : ''}. Show its interests`
    const row = s('g', { class: 'chart-row', 'data-category': c.id },
      s('rect', { class: 'hit', x: 0, y: y + 1, width: '100%', height: ROW - 2, rx: 6 }),
      s('rect', { class: 'track', x: 4, y: y + 21, width: '98%', height: 10, rx: 5 }),
      s('rect', { class: 'mark mark-category', x: 4, y: y + 21, width: pct(0.98 * c.share / max), height: 10, rx: 5 }),
      red > 0
        ? s('rect', { class: 'mark mark-flag', x: 4, y: y + 21, width: pct(0.98 * red / max), height: 10, rx: 5, fill: `url(#${hatch})` })
        : null
    )
    svg.append(interactive(row, label, () => onSelect(c.id)))
    // the written name and value are drawn over the buttons, not in them: a button's name is its full sentence
    labels.push(s('g', { 'aria-hidden': 'true', class: 'chart-text' },
      s('text', { class: 'chart-label', x: 4, y: y + 15 }, c.name),
      s('text', { class: 'chart-value', x: '100%', dx: -4, y: y + 15, 'text-anchor': 'end' }, percent(c.share))
    ))
  })
  svg.append(...labels)
  return h('figure', { class: 'chart-figure' },
    svg,
    h('figcaption', null,
      legend([['swatch-category', 'share of interests'], ['swatch-flag', `red-flag share (${percent(flagged)} of all interests)`]])
    ),
    dataTable('Interest categories', ['Category', 'Share', 'Red-flag share', 'Interests'],
      categories.map((c) => [c.name, percent(c.share), percent(redShare(c)), String(c.interests.length)]))
  )
}
