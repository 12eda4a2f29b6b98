// Friends with common interests or red flags: the sort toggle and paging, on the network of the
// page's tab (each tab's panel has its own card, so the card has no network picker of its own). The
// card opens on common interests, the longer and more telling list, even where the report's default
// is red flags first; the toggle always shows the order the server used: when it answers sortByRedFlagsAdjusted (the
// requested list was empty, the other one served), the toggle follows sortByRedFlags and nothing is
// requested again. A friend's row opens what they share with the profile: the Friend object carries
// two counts only, so opening a row asks GET /report/{id}/friends/{friendId} for the interests
// behind them. A report stored before it kept those interests answers without the lists: the
// panel then says what the counts are, never a guessed list.
import * as api from '../api.js'
import { avatar, errorText, h, plural, SOURCE_NAMES, webLink } from '../dom.js'
import { interestName } from './interest-detail.js'

const PAGE = 10

export function friendsSection (reportId, item, detail) {
  let data = item.friends
  // the report's first page is sorted by its default (red flags first where there are any): with
  // friends in common too, the card asks for those instead
  const reorder = data.sortByRedFlags && data.hasCommonInterests
  const state = { source: item.source, sortByRedFlags: reorder ? false : data.sortByRedFlags, offset: 0 }
  let seq = 0

  const common = h('button', { type: 'button', class: 'segment', id: `friends-common-${item.source}`, 'aria-pressed': 'false' }, 'Common interests')
  const flags = h('button', { type: 'button', class: 'segment', id: `friends-flags-${item.source}`, 'aria-pressed': 'false' }, 'Red flags')
  const toggle = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Sort friends by' }, common, flags)
  const note = h('p', { class: 'note', hidden: true, role: 'status' })
  const list = h('ul', { class: 'people', id: `friends-${item.source}` })
  const range = h('span', { class: 'muted small' })
  const prev = h('button', { type: 'button', class: 'button ghost small' }, '‹ Previous')
  const next = h('button', { type: 'button', class: 'button ghost small' }, 'Next ›')
  const pager = h('div', { class: 'pager' }, prev, range, next)
  const message = h('p', { class: 'form-error', role: 'alert' })

  // shared interests are the profile's own (the dialog opens them); a friend's red flags may not be
  const interestList = (interests, cls) => h('ul', { class: 'friend-interests' }, interests.map((i) => h('li', null,
    cls === 'pill-flag' ? h('span', { class: `pill ${cls}` }, i.name) : interestName(i, detail, `pill ${cls}`),
    i.category ? h('span', { class: `badge ${cls === 'pill-flag' ? 'flag' : 'muted-badge'} small` }, i.category) : null)))
  const friendDetail = (f, shared) => {
    const who = `@${data.sourceProfile.username}`
    const common = Array.isArray(shared.common) ? shared.common : null
    const flagged = Array.isArray(shared.redFlags) ? shared.redFlags : null
    return h('div', { class: 'friend-detail' },
      h('h4', null, `In common with ${who}`),
      common
        ? (common.length ? interestList(common, 'pill-new') : h('p', { class: 'muted' }, 'No interest in common.'))
        : h('p', null, f.count ? `${plural(f.count, 'interest')} in common with ${who}.` : `No interest in common with ${who}.`),
      h('h4', null, 'Their red flags'),
      flagged
        ? (flagged.length ? interestList(flagged, 'pill-flag') : h('p', { class: 'muted' }, 'No red-flag interest.'))
        : h('p', null, f.redFlagsCount ? `${plural(f.redFlagsCount, 'red-flag interest')}.` : 'No red-flag interest.'),
      common && flagged ? null : h('p', { class: 'muted small' }, 'This report keeps these counts, not the interests behind them.')
    )
  }

  // the panel's content, asked for when it first opens; a failure offers to ask again
  const fillPanel = async (panel, f, source) => {
    panel.replaceChildren(h('p', { class: 'muted friend-loading', role: 'status' }, 'Loading what you share…'))
    try {
      const shared = await api.friendDetail(reportId, f.id, source)
      panel.replaceChildren(friendDetail(shared.friend ?? f, shared))
    } catch (err) {
      const retry = h('button', { type: 'button', class: 'button ghost small' }, 'Try again')
      retry.addEventListener('click', () => fillPanel(panel, f, source))
      panel.replaceChildren(h('div', { class: 'friend-error' }, h('p', { class: 'form-error', role: 'alert' }, errorText(err)), retry))
    }
  }

  const friendRow = (f) => {
    // the network this page of friends was asked for (the filter may change before a row opens)
    const listSource = state.source
    const panel = h('div', { class: 'friend-panel', id: `friend-${item.source}-${f.id}`, hidden: true })
    const open = h('button', {
      type: 'button', class: 'icon-button friend-open', 'aria-expanded': 'false', 'aria-controls': panel.id,
      'aria-label': `What ${f.fullname || f.username} shares`
    }, '›')
    const toggle = () => {
      const opening = panel.hidden
      if (opening && !panel.firstChild) fillPanel(panel, f, listSource)
      panel.hidden = !opening
      open.setAttribute('aria-expanded', String(opening))
      li.classList.toggle('open', opening)
    }
    open.addEventListener('click', toggle)
    const row = h('div', { class: 'friend-row' },
      avatar(f, 'md'),
      h('span', { class: 'profile-names' },
        h('span', { class: 'fullname' }, f.fullname || f.username),
        webLink(f.link)
          ? h('a', { class: 'username', href: webLink(f.link), target: '_blank', rel: 'noopener noreferrer' }, `@${f.username}`)
          : h('span', { class: 'username' }, `@${f.username}`)
      ),
      h('span', { class: 'person-metrics' },
        h('span', { class: `metric ${data.sortByRedFlags ? '' : 'lead'}`.trim(), title: 'Interests in common' }, plural(f.count, 'common interest')),
        f.redFlagsCount ? h('span', { class: `metric flag ${data.sortByRedFlags ? 'lead' : ''}`.trim(), title: 'Red-flag interests' }, plural(f.redFlagsCount, 'red flag')) : null
      ),
      open
    )
    // the whole row opens it for a pointer; the button is the keyboard's way in
    row.addEventListener('click', (event) => { if (!event.target.closest('a, button')) toggle() })
    const li = h('li', { class: 'person friend', dataset: { friend: f.id } }, row, panel)
    return li
  }

  const render = () => {
    common.setAttribute('aria-pressed', String(!state.sortByRedFlags))
    flags.setAttribute('aria-pressed', String(state.sortByRedFlags))
    common.title = data.hasCommonInterests ? '' : 'No friend shares an interest'
    flags.title = data.hasRedFlags ? '' : 'No friend has a red-flag interest'

    if (data.sortByRedFlagsAdjusted) {
      note.hidden = false
      note.textContent = data.sortByRedFlags
        ? 'No friend shares an interest with this profile: showing friends with red flags instead.'
        : 'No friend has a red-flag interest: showing friends with common interests instead.'
    } else {
      note.hidden = true
    }

    if (data.items.length) {
      list.replaceChildren(...data.items.map(friendRow))
    } else {
      list.replaceChildren(h('li', { class: 'muted empty' }, `No friends with common interests or red flags on ${SOURCE_NAMES[state.source]}.`))
    }
    const from = data.total ? state.offset + 1 : 0
    range.textContent = data.total ? `${from}–${state.offset + data.items.length} of ${data.total}` : ''
    prev.disabled = state.offset === 0
    next.disabled = !data.hasMore
    pager.hidden = !data.hasMore && state.offset === 0
    section.dataset.sort = state.sortByRedFlags ? 'red-flags' : 'common'
  }

  const load = async () => {
    const mine = ++seq
    section.classList.add('loading')
    message.textContent = ''
    try {
      const page = await api.friends(reportId, { source: state.source, sortByRedFlags: state.sortByRedFlags, offset: state.offset, limit: PAGE })
      if (mine !== seq) return
      data = page
      // the server may serve the other list on the first page: align, do not ask again
      if (page.sortByRedFlagsAdjusted) state.sortByRedFlags = page.sortByRedFlags
      render()
    } catch (err) {
      if (mine === seq) message.textContent = errorText(err)
    } finally {
      if (mine === seq) section.classList.remove('loading')
    }
  }

  const sortBy = (redFlags) => {
    if (state.sortByRedFlags === redFlags) return
    state.sortByRedFlags = redFlags
    state.offset = 0
    render()
    load()
  }
  common.addEventListener('click', () => sortBy(false))
  flags.addEventListener('click', () => sortBy(true))
  prev.addEventListener('click', () => { state.offset = Math.max(0, state.offset - PAGE); load() })
  next.addEventListener('click', () => { state.offset += data.items.length || PAGE; load() })

  const section = h('section', { class: 'card friends', id: `section-friends-${item.source}` },
    h('div', { class: 'section-head wrap' }, h('h3', null, 'Friends'), toggle),
    note, list, message, pager
  )
  if (reorder) {
    // the red-flag page is not shown under a "Common interests" toggle while the other one loads
    data = { ...data, items: [], hasMore: false, total: 0 }
    render()
    list.replaceChildren(h('li', { class: 'muted loading', role: 'status' }, 'Loading the friends…'))
    load()
  } else {
    render()
  }
  return section
}
