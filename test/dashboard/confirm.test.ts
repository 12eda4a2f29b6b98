// The confirmation journey in headless Chromium: sign up, "check your inbox", the mail arrives at
// the test SMTP server, its link opens the confirm page, which takes the secret out of the address bar
// and confirms; an invalid link offers a new one (after a sign-in); an unconfirmed account's banner
// sends the mail again. Each test has its own account and browser profile.
import t from '../tap.ts'
import { GOOD_PASSWORD, registeredUser, uniqueEmail } from '../helper.ts'
import { startSmtp } from '../peers/smtp.ts'
import { inspectView, linkIn, PUBLIC_ORIGIN, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'

t.test('confirming the e-mail address', { skip }, async (t) => {
  const smtp = await startSmtp(t)
  const d = await startDashboard(t, { SMTP_URL: smtp.url })
  const confirmMails = (email: string) => smtp.to(email).filter((m) => /confirm/i.test(m.subject))

  await t.test('sign up, check your inbox, open the mailed link: confirmed', async (t) => {
    const { context, page } = await d.newPage('signup')
    t.teardown(() => context.close())
    const email = uniqueEmail('confirm')
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#tab-signup')
    await page.fill('#signup-email', email)
    await page.fill('#signup-password', GOOD_PASSWORD)
    await page.click('#signup-form button[type=submit]')
    const inbox = page.locator('#check-inbox')
    await inbox.waitFor(WAIT)
    t.match(await inbox.textContent(), /Check your inbox/)
    t.match(await inbox.textContent(), email)
    await inspectView(t, page, 'check-inbox')

    const mail = await smtp.waitFor((m) => m.to.includes(email) && /confirm/i.test(m.subject), 10_000)
    const link = linkIn(mail.text, 'confirm')
    const res = await page.goto(link)
    t.equal(res!.status(), 200)
    const headers = await res!.allHeaders()
    t.match(headers['content-type'], /^text\/html/)
    t.equal(headers['referrer-policy'], 'no-referrer', 'the page sends no Referer')
    t.match(headers['cache-control'], /no-store/, 'no copy of the page is kept')
    await page.locator('#confirm-view[data-state="confirmed"]').waitFor(WAIT)
    t.equal(page.url(), `${PUBLIC_ORIGIN}/#/confirm`, 'the secret is out of the address bar')
    t.notOk(await page.evaluate(() => location.href.includes('/confirm/')))
    t.match(await page.textContent('#confirm-view h1'), /is confirmed/)
    await inspectView(t, page, 'confirm-done')
    await page.click('#confirm-continue')
    await page.locator('#new-report').waitFor(WAIT)
    t.equal(await page.locator('#check-inbox, #confirm-banner').count(), 0, 'no banner once confirmed')

    // the same link again, signed in and confirmed: it says so
    await page.goto(link)
    await page.locator('#confirm-view[data-state="already"]').waitFor(WAIT)
    t.match(await page.textContent('#confirm-view h1'), /already confirmed/)
  })

  await t.test('an invalid link: sign in on the spot and get a new one', async (t) => {
    const { email } = await registeredUser(d.app)
    await smtp.waitFor((m) => m.to.includes(email), 10_000)
    const { context, page } = await d.newPage('invalid-link')
    t.teardown(() => context.close())
    await page.goto(`${PUBLIC_ORIGIN}/confirm/not-a-real-secret`)
    await page.locator('#confirm-view[data-state="invalid"]').waitFor(WAIT)
    t.equal(page.url(), `${PUBLIC_ORIGIN}/#/confirm`)
    t.match(await page.textContent('#confirm-view h1'), /invalid or has expired/)
    await inspectView(t, page, 'confirm-invalid')
    await page.click('#resend-confirmation')
    await page.fill('#resend-signin-email', email)
    await page.fill('#resend-signin-password', GOOD_PASSWORD)
    await page.click('#resend-signin-form button[type=submit]')
    await page.locator('#resend-status', { hasText: 'on its way' }).waitFor(WAIT)
    await smtp.waitFor((m) => m.to.includes(email) && confirmMails(email).length === 2, 10_000)
    t.equal(confirmMails(email).length, 2, 'a second confirmation mail')
    t.ok(await page.locator('#sign-out').isVisible(), 'signed in')
  })

  await t.test('an unconfirmed account sees the banner and resends the mail', async (t) => {
    const { email } = await registeredUser(d.app)
    await smtp.waitFor((m) => m.to.includes(email), 10_000)
    const { context, page } = await d.newPage('banner')
    t.teardown(() => context.close())
    await page.goto(PUBLIC_ORIGIN)
    await submitSignIn(page, { email })
    const banner = page.locator('#confirm-banner')
    await banner.waitFor(WAIT)
    t.match(await banner.textContent(), /not confirmed/)
    await page.emulateMedia({ media: 'print' })
    t.ok(await banner.isHidden(), 'not on paper')
    await page.emulateMedia({ media: 'screen' })
    await inspectView(t, page, 'home-unconfirmed')
    await page.getByRole('button', { name: 'Resend the confirmation mail' }).click()
    await banner.getByText('check your inbox').waitFor(WAIT)
    await smtp.waitFor((m) => m.to.includes(email) && confirmMails(email).length === 2, 10_000)
    t.equal(confirmMails(email).length, 2)
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
