// The report dashboard: restores the session, then routes between the home (search, new report,
// past reports) and a report page. Hash routes (#/, #/report/<id>) need nothing from the server.
import * as api from './api.js'
import { h, plural } from './dom.js'
import { authView } from './views/auth.js'
import { homeView } from './views/home.js'
import { reportView } from './views/report.js'

const main = document.getElementById('main')
const account = document.getElementById('account')

let user = null
let dispose = () => {}

function mount (view) {
  dispose()
  dispose = view.dispose ?? (() => {})
  main.replaceChildren(view.node)
  main.focus({ preventScroll: true })
}

function navigate (hash) {
  if (location.hash === hash) route()
  else location.hash = hash
}

async function refreshUser () {
  try {
    user = await api.info()
  } catch {
    user = null
  }
  renderAccount()
}

function renderAccount () {
  if (!api.signedIn()) {
    account.replaceChildren()
    return
  }
  const subscribed = user?.subscription && ['active', 'trialing'].includes(user.subscription.status)
  const signOut = h('button', { type: 'button', class: 'button ghost small', id: 'sign-out' }, 'Sign out')
  signOut.addEventListener('click', async () => {
    signOut.disabled = true
    try { await api.signOut() } catch {}
    signedOut()
  })
  account.replaceChildren(
    user ? h('span', { class: 'account-email', title: user.email }, user.email) : null,
    user ? h('span', { class: 'credits', id: 'credits' }, subscribed ? 'Subscribed' : plural(user.reportCredits, 'credit')) : null,
    signOut
  )
}

function signedOut () {
  user = null
  renderAccount()
  document.body.dataset.auth = 'signed-out'
  mount(authView({ onSignedIn }))
}

async function onSignedIn () {
  document.body.dataset.auth = 'signed-in'
  await refreshUser()
  route()
}

function route () {
  if (!api.signedIn()) return signedOut()
  const match = /^#\/report\/([^/?#]+)/.exec(location.hash)
  const ctx = { user, navigate, refreshUser }
  if (match) mount(reportView({ ...ctx, reportId: decodeURIComponent(match[1]) }))
  else mount(homeView(ctx))
  window.scrollTo(0, 0)
}

api.whenAuthLost(signedOut)
window.addEventListener('hashchange', route)

// A reload keeps nothing but the session cookie: it gives a fresh JWT when still signed in.
if (await api.refresh()) await onSignedIn()
else signedOut()
