// The staff console (docs/operations.md, Support; #/admin…): the overview, the user search, an
// account's page with its actions, and the audit log. The header shows its link to staff only; the
// API is what keeps everyone else out (a staff role, a session at level 2, a fresh proof for writes),
// so a person who types the address sees the API's refusal in words and nothing else.
import { h, setTitle } from '../../dom.js'
import { adminTabs, hashParams, isStaff } from './common.js'
import { overviewPage } from './overview.js'
import { usersPage } from './users.js'
import { userPage } from './user.js'
import { auditPage } from './audit.js'

function page (ctx, hash) {
  const path = hash.split('?')[0]
  const params = hashParams(hash)
  const user = /^#\/admin\/users\/([^/?#]+)/.exec(path)
  if (user) return ['users', userPage(ctx, decodeURIComponent(user[1]))]
  if (path.startsWith('#/admin/users')) return ['users', usersPage(ctx, params)]
  if (path.startsWith('#/admin/audit')) return ['audit', auditPage(ctx, params)]
  return ['overview', overviewPage(ctx)]
}

export function adminView (ctx, hash) {
  if (!isStaff(ctx.user)) {
    setTitle('Staff console')
    return {
      node: h('section', { class: 'card', id: 'admin-denied', role: 'alert' },
        h('h1', null, 'Staff console'),
        h('p', null, 'The staff console is for support and admin staff.'),
        h('a', { href: '#/' }, '← Reports'))
    }
  }
  const [tab, view] = page(ctx, hash)
  setTitle(`${view.title} · Staff`)
  return {
    node: h('div', { class: 'admin', id: 'admin' }, adminTabs(tab), view.node),
    dispose: view.dispose
  }
}
