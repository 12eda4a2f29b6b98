// Google sign-in through Google Identity Services (GIS). The page loads Google's script only when the
// deployment has a Google client id (the page CSP allows accounts.google.com only then). GIS calls
// window.handleGoogleCredential with {credential, select_by, clientId}; the page posts it as it comes
// to POST /auth/idp, which checks the ID token itself.
import * as api from './api.js'
import { secondFactorForm } from './views/second-factor.js'
import { errorText, h } from './dom.js'

const GIS_SRC = 'https://accounts.google.com/gsi/client'
let script = null

function loadScript () {
  script ??= new Promise((resolve, reject) => {
    const el = h('script', { src: GIS_SRC, async: true })
    el.addEventListener('load', () => resolve(window.google?.accounts?.id))
    el.addEventListener('error', () => { script = null; reject(new Error('Google sign-in could not load')) })
    document.head.append(el)
  })
  return script
}

/**
 * GIS's button rendered into `button`; each credential response goes to `onResponse`, through the
 * global window.handleGoogleCredential (the one callback GIS is given). `failed` is said in the
 * button's place when Google's script cannot load.
 */
export function googleButton (clientId, button, onResponse, failed) {
  window.handleGoogleCredential = onResponse
  loadScript().then((gis) => {
    if (!gis) throw new Error('Google sign-in could not load')
    gis.initialize({ client_id: clientId, callback: (r) => window.handleGoogleCredential(r), ux_mode: 'popup', use_fedcm_for_prompt: true })
    gis.renderButton(button, { type: 'standard', theme: 'outline', size: 'large', text: 'continue_with', shape: 'pill', width: 280 })
  }).catch(() => {
    button.replaceChildren(h('p', { class: 'muted small' }, failed))
  })
}

/**
 * The "Sign in with Google" block: GIS's button, its error line, and the global callback.
 * onSignedIn runs after POST /auth/idp succeeded.
 */
export function googleSignIn (clientId, onSignedIn) {
  const button = h('div', { class: 'google-button', id: 'google-button' })
  const message = h('p', { class: 'form-error', id: 'google-error', role: 'alert' })
  const node = h('div', { class: 'google-signin' },
    h('p', { class: 'divider' }, h('span', null, 'or')),
    button, message)

  googleButton(clientId, button, async (response) => {
    message.textContent = ''
    try {
      const result = await api.googleSignIn({ clientId: response.clientId ?? clientId, credential: response.credential, select_by: response.select_by })
      const signedIn = () => onSignedIn({ google: true, isNewUser: result.isNewUser })
      // an account with a second factor: its code first, in this block's place
      if (result.status === 'success' && result.mfaRequired) return node.replaceChildren(secondFactorForm(signedIn, () => location.reload()))
      if (result.status === 'success') return signedIn()
      message.textContent = result.fieldError.message
    } catch (err) {
      message.textContent = errorText(err)
    }
  }, 'Google sign-in could not load. Check your connection, or sign in with your e-mail.')
  return node
}
