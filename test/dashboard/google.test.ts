// Google sign-in in headless Chromium: the page CSP allows Google Identity Services only when Google
// sign-in is configured; Google's script cannot load offline (the test blocks it), so the test drives
// the page's GIS callback with an ID token signed by the test's Google certificate peer, as GIS would
// hand it over. A new account is made and signed in; the account page shows Google linked; a
// credential Google did not sign is refused on the page.
import t from '../tap.ts'
import { build } from '../helper.ts'
import { startGoogleCerts, TEST_CLIENT_ID } from '../peers/google-certs.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, WAIT } from './browser.ts'

t.test('the page CSP names Google only when Google sign-in is configured', async (t) => {
  const plain = await build(t)
  const csp = (await plain.inject({ method: 'GET', url: '/' })).headers['content-security-policy'] as string
  t.notMatch(csp, /accounts\.google\.com/, 'no third-party script without GOOGLE_CLIENT_IDS')
  t.match(csp, /script-src 'self'/)
  const google = await build(t, { GOOGLE_CLIENT_IDS: TEST_CLIENT_ID })
  const res = await google.inject({ method: 'GET', url: '/' })
  const gcsp = res.headers['content-security-policy'] as string
  t.match(gcsp, /script-src 'self' https:\/\/accounts\.google\.com\/gsi\/client(;|$)/)
  t.match(gcsp, /frame-src 'self' https:\/\/accounts\.google\.com\/gsi\//)
  t.match(gcsp, /connect-src 'self' https:\/\/accounts\.google\.com\/gsi\//)
  t.equal(res.headers['cross-origin-opener-policy'], 'same-origin-allow-popups', 'the sign-in popup may talk back')
  const api = await google.inject({ method: 'GET', url: '/api/v1/health/live' })
  t.notMatch(String(api.headers['content-security-policy']), /google/, 'API answers keep their closed policy')
})

t.test('Google sign-in in the browser', { skip }, async (t) => {
  const peer = await startGoogleCerts()
  t.teardown(() => peer.close())
  const d = await startDashboard(t, { GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: peer.url })

  await t.test('a Google credential signs a new person in; the account shows Google linked', async (t) => {
    const { context, page } = await d.newPage('google')
    t.teardown(() => context.close())
    const email = `google-${process.pid}@example.com`
    await page.goto(PUBLIC_ORIGIN)
    await page.locator('#google-button').waitFor(WAIT)
    // the blocked script: the button's place says so, the e-mail forms still work
    await page.locator('#google-button', { hasText: 'could not load' }).waitFor(WAIT)
    await inspectView(t, page, 'signin-google')
    const credential = peer.idToken({ sub: `1000${process.pid}`, email, name: 'Goo Gle' })
    await page.evaluate((c) => (window as unknown as { handleGoogleCredential: (r: object) => Promise<void> })
      .handleGoogleCredential({ credential: c, select_by: 'btn', clientId: 'test-client.apps.googleusercontent.com' }), credential)
    await page.locator('#sign-out').waitFor(WAIT)
    t.equal(await page.textContent('.account-email'), email)
    t.equal(await page.locator('#confirm-banner, #check-inbox').count(), 0, 'Google vouched for the address: nothing to confirm')

    await page.click('#account-link')
    await page.locator('#account-google').waitFor(WAIT)
    t.match(await page.textContent('#google-state'), /Linked/)
    t.match(await page.textContent('#account-password'), /no password/, 'a Google-only account is told how to get a password')
    // unlinking would lock a password-less account out: the server refuses, the page explains
    await page.click('#google-unlink')
    await page.locator('#account-google .form-error', { hasText: 'Set a password first' }).waitFor(WAIT)
    await inspectView(t, page, 'account-google')
  })

  await t.test('a credential Google did not sign is refused on the page', async (t) => {
    const { context, page } = await d.newPage('google-refused')
    t.teardown(() => context.close())
    await page.goto(PUBLIC_ORIGIN)
    await page.locator('#google-button').waitFor(WAIT)
    const forged = peer.idToken({ email: 'forged@example.com' }, { foreignKey: true })
    await page.evaluate((c) => (window as unknown as { handleGoogleCredential: (r: object) => Promise<void> })
      .handleGoogleCredential({ credential: c, select_by: 'user' }), forged)
    await page.locator('#google-error', { hasText: 'Google sign-in failed' }).waitFor(WAIT)
    t.equal(await page.locator('#sign-out').count(), 0, 'still signed out')
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
