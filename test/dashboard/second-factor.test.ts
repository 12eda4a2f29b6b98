// Two-step sign-in in headless Chromium: the account page sets up an authenticator app (its key shown,
// confirmed with a code the test computes, the recovery codes shown once), then a sign-out, a
// password sign-in that asks for the code (a wrong one is refused; a reload keeps asking), the code,
// and the reports page; finally the app is turned off again under a fresh proof and, as it is the
// only second factor, a recovery code.
import t from '../tap.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, WAIT } from './browser.ts'

t.test('two-step sign-in on the dashboard', { skip }, async (t) => {
  // the app's clock moves on by whole TOTP steps: each code is accepted once
  let shift = 0
  const now = () => Date.now() + shift
  const nextStep = () => { shift += 30_000 }
  const d = await startDashboard(t, {}, { now })
  const { page, user } = await d.signedInPage(t, 'totp')

  await page.click('#account-link')
  await page.locator('#totp-start').waitFor(WAIT)
  t.match(await page.textContent('#totp-state'), /^Off/)
  await page.click('#totp-start')
  await page.locator('#totp-key').waitFor(WAIT)
  const secret = (await page.textContent('#totp-key'))!.trim()
  t.match(secret, /^[A-Z2-7]{32}$/, 'the key is shown')
  t.match(await page.getAttribute('#totp-link', 'href'), /^otpauth:\/\/totp\//, 'and its otpauth link')
  await inspectView(t, page, 'totp-setup')

  await page.fill('#totp-code', codeAt(secret, now()) === '000000' ? '111111' : '000000')
  await page.click('#totp-confirm-form button[type=submit]')
  await page.locator('#totp-code[aria-invalid=true]').waitFor(WAIT)
  t.match(await page.textContent('#totp-code-error'), /wrong/, 'a wrong code is refused under its field')
  await page.fill('#totp-code', codeAt(secret, now()))
  await page.click('#totp-confirm-form button[type=submit]')
  const codes = page.locator('#totp-secret-value')
  await codes.waitFor(WAIT)
  const recoveryCodes = (await codes.inputValue()).split(' ')
  t.equal(recoveryCodes.length, 10, 'ten recovery codes, shown once')
  t.match(await page.textContent('#totp-state'), /^On/)
  await inspectView(t, page, 'totp-recovery-codes')
  await page.click('#totp-secret-done')
  t.equal(await codes.count(), 0, 'gone once dismissed')
  nextStep()

  await page.click('#sign-out')
  await page.locator('#signin-form').waitFor(WAIT)
  await page.fill('#signin-email', user.email)
  await page.fill('#signin-password', user.password)
  await page.click('#signin-form button[type=submit]')
  await page.locator('#second-factor-form').waitFor(WAIT)
  t.equal(await page.locator('#sign-out').count(), 0, 'not signed in yet')
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
