// The password recovery journey in headless Chromium: forgot password, the mail at the test SMTP
// server, the recovery page (secret out of the address bar, the link checked first), the policy's
// message inline, the new password twice (keeping the API keys offered, unticked), signed in with it,
// the notice and the account page saying which API keys went; the old password is refused. A used or
// unknown link says so. An account with an authenticator app goes from the new password to the code
// step, as the sign-in form does, and is signed in once the code is right. Each test has its own
// account and browser profile.
import t from '../tap.ts'
import { GOOD_PASSWORD, registeredUser, signedInUser, uniqueEmail } from '../helper.ts'
import { enrolTotp } from '../mfa/support.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { startSmtp } from '../peers/smtp.ts'
import { issueKey } from '../api-keys/support.ts'
import { inspectView, linkIn, PUBLIC_ORIGIN, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'

const NEW_PASSWORD = 'a brand new passphrase 42'

t.test('recovering a forgotten password', { skip }, async (t) => {
  const smtp = await startSmtp(t)
  // the app's clock moves on by whole TOTP steps: each code is accepted once
  let shift = 0
  const now = () => Date.now() + shift
  const nextStep = () => { shift += 30_000 }
  const d = await startDashboard(t, { SMTP_URL: smtp.url }, { now })

  await t.test('forgot password, the mail, a new password: signed in, the old one refused', async (t) => {
    const { email } = await registeredUser(d.app)
    // an API key made before the reset (by whoever knew the old password, say)
    const signin = await d.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: GOOD_PASSWORD, token: true } })
    const key = await issueKey(d.app, { authorization: `Bearer ${signin.json().token as string}` })
    const { context, page } = await d.newPage('recovery')
    t.teardown(() => context.close())
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#forgot-link')
    await page.fill('#forgot-email', email)
    await page.click('#forgot-form button[type=submit]')
    const sent = page.locator('#forgot-sent')
    await sent.waitFor(WAIT)
    t.match(await sent.textContent(), /Check your inbox/)
    t.match(await sent.textContent(), /answers the same whatever the address/, 'the page says the answer does not depend on the address')
    await inspectView(t, page, 'forgot-sent')

    const mail = await smtp.waitFor((m) => m.to.includes(email) && /password/i.test(m.subject), 10_000)
    const link = linkIn(mail.text, 'recovery')
    await page.goto(link)
    await page.locator('#recovery-view[data-state="ready"]').waitFor(WAIT)
    t.equal(page.url(), `${PUBLIC_ORIGIN}/#/recovery`, 'the secret is out of the address bar')
    await inspectView(t, page, 'recovery-form')

    await page.fill('#recovery-email', email)
    await page.fill('#recovery-password', NEW_PASSWORD)
    await page.fill('#recovery-repeat', 'something else entirely')
    await page.click('#recovery-form button[type=submit]')
    await page.locator('#recovery-repeat-error', { hasText: 'differ' }).waitFor(WAIT)
    t.equal(await page.getAttribute('#recovery-repeat', 'aria-invalid'), 'true')

    // the server's password policy, shown under the field
    await page.fill('#recovery-password', 'short')
    await page.fill('#recovery-repeat', 'short')
    await page.click('#recovery-form button[type=submit]')
    await page.waitForFunction(() => document.querySelector('#recovery-password-error')?.textContent !== '', null, WAIT)
    t.match(await page.textContent('#recovery-password-error'), /\S/, 'the policy message is under the password')
    t.equal(await page.getAttribute('#recovery-password', 'aria-invalid'), 'true')
    await inspectView(t, page, 'recovery-policy')

    await page.fill('#recovery-password', NEW_PASSWORD)
    await page.fill('#recovery-repeat', NEW_PASSWORD)
    t.equal(await page.isChecked('#recovery-keep-api-keys'), false, 'keeping the API keys is offered, unticked')
    await page.click('#recovery-form button[type=submit]')
    await page.locator('#password-reset-notice').waitFor(WAIT)
    t.match(await page.textContent('#password-reset-revoked'), /^1 API key was revoked, and no webhook endpoint was disabled\./, 'the notice says what was revoked')
    t.equal((await d.app.inject({ url: '/api/v1/report', headers: key.auth })).statusCode, 401, 'the key made before is refused')
    t.equal(await page.textContent('.account-email'), email, 'signed in with the new password')
    t.equal(page.url(), `${PUBLIC_ORIGIN}/#/`)

    await page.click('#account-link')
    await page.locator('#account-revoked').waitFor(WAIT)
    t.match(await page.textContent('#account-revoked'), /When your password was reset: 1 API key was revoked/, 'and so does the account page')

    // the old password no longer signs in; the new one does
    await page.click('#sign-out')
    await submitSignIn(page, { email })
    await page.locator('#signin-password-error', { hasText: 'Wrong e-mail or password' }).waitFor(WAIT)
    await page.fill('#signin-password', NEW_PASSWORD)
    await page.click('#signin-form button[type=submit]')
    await page.locator('#sign-out').waitFor(WAIT)

    // the link worked once
    await page.goto(link)
    await page.locator('#recovery-view[data-state="invalid"]').waitFor(WAIT)
    t.match(await page.textContent('#recovery-view'), /cannot be used/)
  })

  await t.test('an account with an authenticator app: the new password leads to the code step, the code signs in', async (t) => {
    const user = await signedInUser(d.app)
    const { secret } = await enrolTotp({ app: d.app, now, nextStep, hold: () => {}, release: () => {} }, user)
    const { context, page } = await d.newPage('recovery-totp')
    t.teardown(() => context.close())
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#forgot-link')
    await page.fill('#forgot-email', user.email)
    await page.click('#forgot-form button[type=submit]')
    await page.locator('#forgot-sent').waitFor(WAIT)
    const mail = await smtp.waitFor((m) => m.to.includes(user.email) && /password/i.test(m.subject), 10_000)
    await page.goto(linkIn(mail.text, 'recovery'))
    await page.locator('#recovery-view[data-state="ready"]').waitFor(WAIT)
    await page.fill('#recovery-email', user.email)
    await page.fill('#recovery-password', NEW_PASSWORD)
    await page.fill('#recovery-repeat', NEW_PASSWORD)
    await page.click('#recovery-form button[type=submit]')

    await page.locator('#second-factor-form').waitFor(WAIT)
    t.match(await page.textContent('#recovery-second-factor-notice'), /new password is set/, 'the password is said to be set')
    t.equal(await page.locator('#sign-out').count(), 0, 'not signed in yet: the code step, not the reports')
    t.equal(await page.locator('#password-reset-notice').count(), 0, 'no "signed in" notice before the code')
    await inspectView(t, page, 'recovery-second-factor')

    await page.fill('#second-factor-code', codeAt(secret, now()))
    await page.click('#second-factor-form button[type=submit]')
    await page.locator('#password-reset-notice').waitFor(WAIT)
    t.equal(await page.textContent('.account-email'), user.email, 'signed in with the new password and the code')
    t.equal(page.url(), `${PUBLIC_ORIGIN}/#/`)
    t.equal(await page.locator('.card', { hasText: 'Second factor required' }).count(), 0, 'no card refused for a missing second factor')
  })

  await t.test('an unknown address gets the same answer and no mail', async (t) => {
    const { context, page } = await d.newPage('forgot-unknown')
    t.teardown(() => context.close())
    const email = uniqueEmail('nobody')
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#forgot-link')
    await page.fill('#forgot-email', email)
    await page.click('#forgot-form button[type=submit]')
    await page.locator('#forgot-sent').waitFor(WAIT)
    t.match(await page.textContent('#forgot-sent'), /Check your inbox/)
    t.same(smtp.to(email), [], 'no mail for an address without an account')
  })

  await t.test('an unknown link, and the page reloaded without its link', async (t) => {
    const { context, page } = await d.newPage('recovery-invalid')
    t.teardown(() => context.close())
    await page.goto(`${PUBLIC_ORIGIN}/recovery/not-a-real-secret`)
    await page.locator('#recovery-view[data-state="invalid"]').waitFor(WAIT)
    await inspectView(t, page, 'recovery-invalid')
    await page.reload()
    await page.locator('#recovery-view', { hasText: 'open that link again' }).waitFor(WAIT)
    t.match(await page.textContent('#recovery-view'), /the link in your mail/)
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
