// The read-only sections of one ReportItem: the profile, interest categories, top interests and
// red flags.
import { avatar, bar, h, percent, plural, SOURCE_NAMES, sourceBadge, webLink } from '../dom.js'
import { interestName } from './interest-detail.js'
import { categoryBars } from '../charts/category-bars.js'

export function profileHeader (item) {
  const redFlags = item.redFlags?.length ?? 0
  return h('section', { class: 'card profile-card' },
    avatar(item, 'lg'),
    h('div', { class: 'profile-main' },
      h('h2', { class: 'profile-title' }, item.fullname || item.username),
      h('p', { class: 'profile-sub' },
        sourceBadge(item.source),
        webLink(item.link)
          ? h('a', { href: webLink(item.link), target: '_blank', rel: 'noopener noreferrer' }, `@${item.username}`)
          : h('span', null, `@${item.username}`)
      )
    ),
    h('dl', { class: 'stats' },
      stat(item.totalInterests, 'interests'),
      stat(item.categoriesCount, 'categories'),
      stat(redFlags, 'red flags', redFlags > 0 ? 'stat-flag' : ''),
      // the report carries the first page of one list only: name the list its count is of
      stat(item.friends.total, item.friends.sortByRedFlags ? 'friends with red flags' : 'friends in common')
    )
  )
}

function stat (value, label, cls = '') {
  return h('div', { class: `stat ${cls}`.trim() }, h('dt', null, label), h('dd', null, String(value)))
}

function categoryRow (category, detail, open) {
  const summary = h('summary', { class: 'category-summary' },
    h('span', { class: 'category-name' }, category.name),
    h('span', { class: 'share' }, percent(category.share)),
    bar(category.relative)
  )
  const interests = h('ul', { class: 'category-interests' }, category.interests.map((i) => h('li', null,
    interestName(i, detail, i.redCatId ? 'flagged' : ''),
    i.redCatId && i.category ? h('span', { class: 'badge flag small' }, i.category) : null,
    h('span', { class: 'share muted' }, percent(i.share))
  )))
  return h('li', { class: 'category', dataset: { category: category.id } }, h('details', { open }, summary, interests))
}

export function categoriesSection (item, detail) {
  const preview = item.categories ?? []
  const previewInterests = preview.reduce((n, c) => n + c.interests.length, 0)
  // the preview is cut to 8 interests (spec 2.4): the full tree is one request away
  const truncated = preview.length > 0 && (item.categoriesCount > preview.length || item.totalInterests > previewInterests)
  const list = h('ul', { class: 'categories', id: `categories-${item.source}` })
  const note = h('p', { class: 'muted small' })
  const more = h('button', { type: 'button', class: 'button ghost small', hidden: !truncated },
    `Show all ${plural(item.categoriesCount, 'category', 'categories')}`)
  const chart = h('div', { class: 'chart-slot' })
  let shownFull = false
  const render = (categories, full) => {
    shownFull = full
    list.replaceChildren(...categories.map((c, n) => categoryRow(c, detail, !full || n < 3)))
    note.textContent = full ? 'Every category with all its interests.' : 'The strongest interests, grouped by category.'
    more.hidden = full || !truncated
  }
  const loadAll = async () => {
    const tree = await detail.tree(item.source)
    if (!shownFull) render(tree, true)
  }
  // a bar of the chart opens its category in the list (every category, once the tree is loaded)
  const openCategory = async (id) => {
    await loadAll()
    const row = list.querySelector(`[data-category="${CSS.escape(id)}"]`)
    if (!row) return
    const details = row.querySelector('details')
    details.open = true
    row.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
    details.querySelector('summary').focus({ preventScroll: true })
  }
  more.addEventListener('click', async () => {
    more.disabled = true
    more.textContent = 'Loading…'
    try {
      await loadAll()
    } catch {
      more.textContent = 'Could not load: try again'
      more.disabled = false
    }
  })
  if (preview.length) {
    render(preview, false)
    chart.append(h('p', { class: 'muted small', role: 'status' }, 'Loading the chart…'))
    detail.tree(item.source).then(
      (tree) => chart.replaceChildren(categoryBars(tree, { source: item.source, onSelect: openCategory })),
      () => chart.replaceChildren(h('p', { class: 'form-error' }, 'The chart could not be loaded.'))
    )
  } else {
    list.append(h('li', { class: 'muted empty' }, 'No interests found for this profile.'))
  }
  return h('section', { class: 'card', id: `section-categories-${item.source}` },
    h('div', { class: 'section-head' }, h('h3', null, 'Interest categories'), more),
    chart,
    note,
    list
  )
}

export function topInterestsSection (item, detail) {
  const body = item.topInterests.length
    ? h('ol', { class: 'ranked', id: `top-interests-${item.source}` }, item.topInterests.map((i) => h('li', null,
      h('span', { class: 'ranked-name' },
        interestName(i, detail),
        i.category ? h('span', { class: 'badge muted-badge small' }, i.category) : null
      ),
      h('span', { class: 'share' }, percent(i.share)),
      bar(i.relative)
    )))
    : h('p', { class: 'muted empty' }, 'No interests found for this profile.')
  return h('section', { class: 'card', id: `section-top-${item.source}` },
    h('div', { class: 'section-head' }, h('h3', null, 'Top interests'), h('span', { class: 'muted small' }, `of ${item.totalInterests}`)),
    body
  )
}

export function redFlagsSection (item, detail) {
  const flags = item.redFlags ?? []
  const body = flags.length
    ? h('ul', { class: 'flags', id: `red-flags-${item.source}` }, flags.map((i) => h('li', { class: 'flag-row' },
      h('span', { class: 'flag-mark', 'aria-hidden': 'true' }, '!'),
      h('span', { class: 'ranked-name' }, interestName(i, detail), i.category ? h('span', { class: 'badge flag' }, i.category) : null),
      h('span', { class: 'share' }, percent(i.share))
    )))
    : h('p', { class: 'muted empty ok' }, `No red-flag interests found on ${SOURCE_NAMES[item.source]}.`)
  return h('section', { class: `card ${flags.length ? 'has-flags' : ''}`.trim(), id: `section-flags-${item.source}` },
    h('div', { class: 'section-head' }, h('h3', null, 'Red flags'), flags.length ? h('span', { class: 'count-badge flag' }, String(flags.length)) : null),
    body
  )
}
