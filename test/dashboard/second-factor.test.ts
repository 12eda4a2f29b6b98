// Two-step sign-in in headless Chromium: the account page sets up an authenticator app (its key shown
// as text, link and QR code, confirmed with a code the test computes, the recovery codes shown once as
// a list, copied and downloaded), then a sign-out, a password sign-in that asks for the code (no
// passkey offered to an account without one; a wrong code is refused; a reload keeps asking), the
// code, and the reports page; finally the app is turned off again under a fresh proof and, as it is
// the only second factor, a recovery code.
import { readFileSync } from 'node:fs'
import t from '../tap.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, WAIT } from './browser.ts'

t.test('two-step sign-in on the dashboard', { skip }, async (t) => {
  // the app's clock moves on by whole TOTP steps: each code is accepted once
  let shift = 0
  const now = () => Date.now() + shift
  const nextStep = () => { shift += 30_000 }
  const d = await startDashboard(t, {}, { now })
  const { page, user } = await d.signedInPage(t, 'totp', { context: { permissions: ['clipboard-read', 'clipboard-write'] } })

  await page.click('#account-link')
  await page.locator('#totp-start').waitFor(WAIT)
  t.match(await page.textContent('#totp-state'), /^Off/)
  await page.click('#totp-start')
  await page.locator('#totp-key').waitFor(WAIT)
  const secret = (await page.textContent('#totp-key'))!.trim()
  t.match(secret, /^[A-Z2-7]{32}$/, 'the key is shown')
  t.match(await page.getAttribute('#totp-link', 'href'), /^otpauth:\/\/totp\//, 'and its otpauth link')
  // the QR code: the encoder's matrix drawn as an SVG path, from the module this server serves
  t.match(await page.locator('#totp-qr svg path').getAttribute('d'), /^M\d+,\d+h1v1h-1z/, 'and its QR code')
  const vendor = await d.app.inject({ url: '/vendor/uqr/index.mjs' })
  t.equal(vendor.statusCode, 200, 'the QR encoder is served from its package')
  t.match(vendor.headers['content-type'], /javascript/)
  t.equal((await d.app.inject({ url: '/vendor/uqr/index.cjs' })).statusCode, 404, 'its ES module only')
  await inspectView(t, page, 'totp-setup')

  await page.fill('#totp-code', codeAt(secret, now()) === '000000' ? '111111' : '000000')
  await page.click('#totp-confirm-form button[type=submit]')
  await page.locator('#totp-code[aria-invalid=true]').waitFor(WAIT)
  t.match(await page.textContent('#totp-code-error'), /wrong/, 'a wrong code is refused under its field')
  await page.fill('#totp-code', codeAt(secret, now()))
  await page.click('#totp-confirm-form button[type=submit]')
  const codes = page.locator('#totp-codes')
  await codes.waitFor(WAIT)
  const recoveryCodes = await codes.locator('li code').allTextContents()
  t.equal(recoveryCodes.length, 10, 'ten recovery codes, shown once, one a line')
  t.ok(recoveryCodes.every((c) => /^[a-z0-9-]{20,}$/i.test(c)), 'each a whole code')
  t.match(await page.textContent('#totp-state'), /^On/)
  await page.click('#totp-codes-copy')
  await page.locator('#totp-codes-status', { hasText: 'Copied' }).waitFor(WAIT)
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), `${recoveryCodes.join('\n')}\n`, 'Copy: all ten, one a line')
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#totp-codes-download')])
  t.equal(download.suggestedFilename(), 'recovery-codes.txt')
  t.equal(readFileSync(await download.path(), 'utf8'), `${recoveryCodes.join('\n')}\n`, 'Download: the same text as a file')
  await inspectView(t, page, 'totp-recovery-codes')
  await page.click('#totp-codes-done')
  t.equal(await codes.count(), 0, 'gone once dismissed')
  nextStep()

  await page.click('#sign-out')
  await page.locator('#signin-form').waitFor(WAIT)
  await page.fill('#signin-email', user.email)
  await page.fill('#signin-password', user.password)
  // the second step reads the account's info (its level-1 JWT may): it has no passkey to offer
  const infoRead = page.waitForResponse((res) => res.url().endsWith('/api/v1/auth/info'), WAIT)
  await page.click('#signin-form button[type=submit]')
  await page.locator('#second-factor-form').waitFor(WAIT)
  t.equal(await page.locator('#sign-out').count(), 0, 'not signed in yet')
  t.equal((await infoRead).status(), 200)
  t.ok(await page.locator('#second-factor-passkey').isHidden(), 'no "Use a passkey instead": the account has no passkey')
  await inspectView(t, page, 'second-factor')

  await page.reload()
  await page.locator('#second-factor-form').waitFor(WAIT)
  t.pass('a reload asks for the code again (the session waits for it)')
  await page.fill('#second-factor-code', codeAt(secret, now()) === '000000' ? '111111' : '000000')
  await page.click('#second-factor-form button[type=submit]')
  await page.locator('#second-factor-code[aria-invalid=true]').waitFor(WAIT)
  t.match(await page.textContent('#second-factor-code-error'), /wrong/)
  await page.fill('#second-factor-code', codeAt(secret, now()))
  await page.click('#second-factor-form button[type=submit]')
  await page.locator('#sign-out').waitFor(WAIT)
  // signed in where the page was (the account page), and on to the reports
  await page.locator('#account-totp').waitFor(WAIT)
  await page.click('a.back')
  await page.locator('#report-list:not([aria-busy])').waitFor(WAIT)
  t.equal(new URL(page.url()).origin, PUBLIC_ORIGIN)
  t.pass('the reports page, after the code')

  // turned off again: the call needs a fresh proof, which the page asks for
  await d.app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = (select id from users where email = $1)", [user.email])
  await page.click('#account-link')
  await page.locator('#totp-remove').waitFor(WAIT)
  t.match(await page.textContent('#totp-recovery-left'), /^10 recovery codes left/)
  await page.click('#totp-remove')
  await page.locator('#totp-proof-form').waitFor(WAIT)
  await page.fill('#totp-proof-password', user.password)
  await page.click('#totp-proof-form button[type=submit]')
  // the only second factor: the password alone does not turn it off, a recovery code does
  await page.locator('#totp-off-form').waitFor(WAIT)
  await page.fill('#totp-off-code', recoveryCodes[0])
  await page.click('#totp-off-form button[type=submit]')
  await page.locator('#totp-start').waitFor(WAIT)
  t.match(await page.textContent('#totp-state'), /^Off/, 'turned off')

  t.same(d.problems, [], 'no script error and no CSP violation')
})
