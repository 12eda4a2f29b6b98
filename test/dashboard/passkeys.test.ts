// Passkeys in headless Chromium, with Chromium's virtual authenticator (the DevTools protocol's
// WebAuthn domain: a platform authenticator that holds discoverable credentials, verifies its user
// and answers without a touch). The account page registers a passkey and lists it; signed out, the
// sign-in form's autofill offer and its button sign in with it and the reports page opens; removing
// it (the fresh-proof prompt answered with the passkey) leaves the list empty, and it signs no one in.
// After a password, the passkey is the second factor. The library's ES module is served from the
// installed package.
import t from '../tap.ts'
import type { BrowserContext, CDPSession } from 'playwright-core'
import { registeredUser } from '../helper.ts'
import { inspectView, PUBLIC_ORIGIN, signInThroughForm, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'

/** a virtual authenticator for the context's page: CDP's WebAuthn domain */
async function virtualAuthenticator (context: BrowserContext, page: Parameters<BrowserContext['newCDPSession']>[0]): Promise<{ cdp: CDPSession, authenticatorId: string }> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true }
  })
  return { cdp, authenticatorId }
}

t.test('passkeys in the dashboard', { skip }, async (t) => {
  const d = await startDashboard(t)

  await t.test('the browser library is served from the installed package', async (t) => {
    const res = await d.app.inject({ url: '/vendor/simplewebauthn/index.js' })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /javascript/)
    t.match(res.body, /startAuthentication/)
    t.equal((await d.app.inject({ url: '/vendor/simplewebauthn/index.d.ts' })).statusCode, 404, 'only its scripts')
  })

  await t.test('register a passkey, sign out, sign in with it, remove it', async (t) => {
    const user = await registeredUser(d.app)
    const { context, page } = await d.newPage('passkeys')
    t.teardown(() => context.close())
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page)

    await signInThroughForm(page, user)
    await page.click('#account-link')
    await page.locator('#account-passkeys').waitFor(WAIT)
    await page.locator('#passkey-list .empty').waitFor(WAIT)
    await page.fill('#passkey-name', 'Test laptop')
    await page.click('#passkey-form button[type=submit]')
    await page.locator('#passkey-list .program-item').waitFor(WAIT)
    t.match(await page.textContent('#passkey-list'), /Test laptop/)
    t.match(await page.textContent('#passkey-form .form-ok'), /Added "Test laptop"/)
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    t.equal(credentials.length, 1, 'the authenticator holds the new passkey')
    t.equal(credentials[0].isResidentCredential, true, 'a discoverable one')
    await inspectView(t, page, 'account-passkeys')

    const signedInWith = async () => (await d.app.database.query<{ method: string }>(
      'select method from sessions where user_id = (select id from users where email = $1) and ended_at is null order by created_at desc limit 1',
      [user.email]))[0]?.method

    // autofill: the sign-in form starts a conditional request as it opens, which the virtual
    // authenticator answers at once with the one passkey it holds (a person would pick it in the
    // e-mail field's suggestions)
    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    await page.goto(PUBLIC_ORIGIN)
    await page.locator('#reports').waitFor(WAIT)
    t.ok(await page.locator('#sign-out').isVisible(), 'signed in by the autofill offer')
    t.match(page.url(), /^http:\/\/localhost:8443\/(#\/)?$/, 'the reports page')
    t.equal(await signedInWith(), 'passkey', 'the session was signed in with the passkey')

    // the button, in a browser without conditional mediation (so no autofill request comes first)
    await context.addInitScript(() => { PublicKeyCredential.isConditionalMediationAvailable = async () => false })
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    t.equal(await page.getAttribute('#signin-email', 'autocomplete'), 'username webauthn', 'the e-mail field offers passkeys in its autofill')
    await page.click('#signin-passkey')
    await page.locator('#reports').waitFor(WAIT)
    t.equal(await signedInWith(), 'passkey', 'signed in by the button')

    // the password of an account with a passkey: the second step takes the passkey
    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    await submitSignIn(page, user)
    await page.locator('#second-factor-form').waitFor(WAIT)
    await page.click('#second-factor-passkey')
    await page.locator('#reports').waitFor(WAIT)
    t.equal(await signedInWith(), 'password', 'the password session, now at level 2')

    // removing it with a stale proof: the prompt offers the passkey itself
    await page.click('#account-link')
    await page.locator('#passkey-list .program-item').waitFor(WAIT)
    await d.app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = (select id from users where email = $1)", [user.email])
    page.once('dialog', (dialog) => { dialog.accept().catch(() => {}) })
    await page.click('#passkey-list .program-item button')
    await page.locator('#passkey-remove-proof-passkey').waitFor(WAIT)
    await page.click('#passkey-remove-proof-passkey')
    await page.locator('#passkey-list .empty').waitFor(WAIT)
    t.equal(await page.locator('#passkey-list .program-item').count(), 0, 'the list is empty')

    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    await page.click('#signin-passkey')
    await page.locator('#signin-form .form-error:not(:empty)').waitFor(WAIT)
    t.match(await page.textContent('#signin-form .form-error'), /not accepted/, 'the removed passkey signs no one in')
    t.same(d.problems, [], 'no script error, no CSP violation')
  })
})
