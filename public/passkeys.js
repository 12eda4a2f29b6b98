// Passkeys in the page (docs/decisions/accounts.md, Passkeys): the browser's half of the WebAuthn
// ceremonies through @simplewebauthn/browser, served by this server from its installed package.
// Sign-in with a passkey by a button, or by the browser's autofill on the e-mail field (conditional
// mediation, started once the form is on the page), and the registration the account page starts.
import {
  browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, startAuthentication, startRegistration, WebAuthnAbortService
} from '/vendor/simplewebauthn/index.js'
import * as api from './api.js'

export const passkeysSupported = () => browserSupportsWebAuthn()

/** the person closed the browser's prompt, or another ceremony replaced this one: nothing to report */
export const cancelled = (err) => err?.name === 'NotAllowedError' || err?.name === 'AbortError' || err?.code === 'ERROR_CEREMONY_ABORTED'

/** a passkey sign-in through the browser's prompt; resolves with the API's answer */
export async function signInWithPasskey (remember = true) {
  const options = await api.passkeySigninOptions()
  const response = await startAuthentication({ optionsJSON: options })
  return await api.passkeySignIn(response, remember)
}

/** a passkey of the signed-in account as its second factor (POST /auth/mfa/verify); resolves with the API's answer */
export async function verifyWithPasskey () {
  const options = await api.passkeySigninOptions()
  const response = await startAuthentication({ optionsJSON: options })
  return await api.verifySecondFactor({ passkey: response })
}

/** an assertion of one of the account's passkeys, for a call that carries it (removing the last second factor) */
export async function passkeyAssertion () {
  const options = await api.passkeySigninOptions()
  return await startAuthentication({ optionsJSON: options })
}

/** a passkey of the signed-in account as a fresh proof of its owner (POST /auth/reauthenticate) */
export async function proveWithPasskey () {
  const options = await api.passkeySigninOptions()
  const response = await startAuthentication({ optionsJSON: options })
  return await api.reauthenticate({ passkey: response })
}

/**
 * Offer the account's passkeys in the autofill of the e-mail input (autocomplete "username webauthn")
 * once `form` is on the page; `onSignedIn` when one is chosen, `onError` with a refusal.
 */
export function offerPasskeyAutofill (form, onSignedIn, onError) {
  const start = async () => {
    if (!form.isConnected || !await browserSupportsWebAuthnAutofill()) return
    try {
      const options = await api.passkeySigninOptions()
      const response = await startAuthentication({ optionsJSON: options, useBrowserAutofill: true })
      const result = await api.passkeySignIn(response, true)
      if (result.status === 'success') onSignedIn()
    } catch (err) {
      if (!cancelled(err)) onError(err)
    }
  }
  // the view is put on the page after it is built: wait a turn
  setTimeout(start, 0)
}

/** leave the autofill offer (a password sign-in, or the button's own prompt, takes over) */
export const stopPasskeyAutofill = () => WebAuthnAbortService.cancelCeremony()

/** register a new passkey of the signed-in person; resolves with the passkey as listed */
export async function addPasskey (name) {
  const options = await api.passkeyRegistrationOptions()
  const response = await startRegistration({ optionsJSON: options })
  return await api.registerPasskey(response, name)
}

/** a line for a failed passkey call: the API's refusal, or what the browser's ceremony said */
export function passkeyErrorText (err, errorText) {
  if (typeof err?.status === 'number' || !err?.code) return errorText(err)
  if (err.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'This device holds a passkey of your account already.'
  return `The browser could not complete it: ${err.message}`
}
