// The interest dialog: opened from any active interest (top interests, red flags, categories, the
// diff timeline). Shares and the follows it is based on come from the full category tree.
import * as api from '../api.js'
import { avatar, bar, h, percent } from '../dom.js'

export function createInterestDetail (reportId) {
  const trees = new Map()
  const dialog = h('dialog', { class: 'dialog', id: 'interest-dialog', 'aria-labelledby': 'interest-dialog-title' })
  dialog.addEventListener('click', (event) => { if (event.target === dialog) dialog.close() })

  const tree = (source) => {
    if (!trees.has(source)) {
      const p = api.interests(reportId, source).then((r) => r.items)
      p.catch(() => trees.delete(source))
      trees.set(source, p)
    }
    return trees.get(source)
  }

  async function open (interest) {
    const body = h('div', { class: 'dialog-body' }, h('p', { class: 'muted' }, 'Loading…'))
    dialog.replaceChildren(
      h('div', { class: 'dialog-head' },
        h('h3', { id: 'interest-dialog-title' }, interest.name),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close', onClick: () => dialog.close() }, '×')
      ),
      body
    )
    if (!dialog.open) dialog.showModal()
    try {
      const categories = await tree(interest.source)
      let found = null
      let parent = null
      for (const c of categories) {
        const i = c.interests.find((x) => x.id === interest.id)
        if (i) { found = i; parent = c; break }
      }
      if (!found) {
        body.replaceChildren(h('p', { class: 'muted' }, 'This interest is not among the profile\'s current interests.'))
        return
      }
      body.replaceChildren(
        h('div', { class: 'detail-row' },
          h('span', null, 'Category'),
          h('strong', null, parent.name),
          found.redCatId ? h('span', { class: 'badge flag' }, found.category ?? 'Red flag') : null
        ),
        h('div', { class: 'detail-row' }, h('span', null, 'Share of interests'), h('strong', null, percent(found.share))),
        bar(found.relative, found.redCatId ? 'bar-flag' : ''),
        h('h4', null, 'Based on following'),
        found.follows?.length
          ? h('ul', { class: 'people compact' }, found.follows.map((f) => h('li', { class: 'person' },
            avatar(f, 'sm'),
            h('span', { class: 'profile-names' }, h('span', { class: 'fullname' }, f.fullname || f.username), h('span', { class: 'username' }, `@${f.username}`))
          )))
          : h('p', { class: 'muted' }, 'No account to show.')
      )
    } catch {
      body.replaceChildren(h('p', { class: 'form-error' }, 'The interest details could not be loaded.'))
    }
  }

  return { dialog, open, tree }
}

/** an interest name: a button opening the dialog, or plain text when it is no longer active */
export function interestName (interest, detail, extraClass = '') {
  if (interest.unactive) {
    return h('span', { class: `interest unactive ${extraClass}`.trim(), title: 'No longer among the current interests' }, interest.name)
  }
  return h('button', { type: 'button', class: `interest ${extraClass}`.trim(), onClick: () => detail.open(interest) }, interest.name)
}
