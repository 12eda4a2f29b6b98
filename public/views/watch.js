// The watch toggle of a ready report (docs/decisions/dashboard.md, Dashboard): a pressed/unpressed
// button and how many of the allowed watches are in use ("3 of 5 watches"), read from GET /watches.
// At the limit an unwatched report's button is disabled and says why, with the way to more (a
// subscription where this server sells one); a 402 (the limit reached in another tab) says the
// same.
import * as api from '../api.js'
import { errorText, fill, h } from '../dom.js'

/** every watch of the user, to tell whether this report is one (the list is at most the limit long) */
async function allWatches () {
  const items = []
  for (;;) {
    const page = await api.watches(items.length, 100)
    items.push(...page.items)
    if (!page.hasMore || page.items.length === 0) return { items, total: page.total, limit: page.limit }
  }
}

export function watchToggle (ctx, reportId) {
  const button = h('button', { type: 'button', class: 'button small watch-button', id: 'watch-toggle', 'aria-pressed': 'false', disabled: true, 'aria-describedby': 'watch-status' }, 'Watch')
  const status = h('span', { class: 'muted small watch-status', id: 'watch-status' }, 'Loading your watches…')
  const message = h('p', { class: 'form-error watch-message', role: 'alert' })
  let state = null

  const moreOffer = () => ctx.config.billing
    ? [' ', h('a', { href: '#/account', id: 'watch-billing' }, 'Subscribe for more watches'), '.']
    : ' Stop watching another report to watch this one.'

  const draw = () => {
    const watching = state.items.some((w) => w.reportId === reportId)
    const full = !watching && state.total >= state.limit
    button.setAttribute('aria-pressed', String(watching))
    button.classList.toggle('primary', watching)
    button.textContent = watching ? 'Watching' : 'Watch'
    button.disabled = full
    button.title = watching ? 'Stop watching this report' : 'Be alerted when these profiles change'
    fill(status,
      `${state.total} of ${state.limit} watches`,
      full ? ['. You watch as many reports as your plan allows.', moreOffer()] : null)
    status.parentElement?.setAttribute('data-full', String(full))
  }

  const load = async () => {
    try {
      state = await allWatches()
      draw()
    } catch (err) {
      status.textContent = ''
      message.textContent = `Your watches could not be read. ${errorText(err)}`
    }
  }

  button.addEventListener('click', async () => {
    if (!state) return
    const watching = state.items.some((w) => w.reportId === reportId)
    button.disabled = true
    message.textContent = ''
    try {
      if (watching) await api.unwatchReport(reportId)
      else await api.watchReportChanges(reportId)
    } catch (err) {
      if (err.status === 402) {
        fill(message, `You already watch as many reports as your plan allows (${state.limit}).`, moreOffer())
      } else {
        message.textContent = errorText(err)
      }
    }
    await load()
  })

  load()
  return h('div', { class: 'watch', role: 'group', 'aria-label': 'Watch this report' }, button, status, message)
}
