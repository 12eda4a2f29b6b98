// The states around the data in headless Chromium: loading, empty, and each kind of failure: a 429
// with its Retry-After time, the service unavailable (503), offline (the browser's network cut, so
// fetch rejects with a TypeError). The failures are made by the browser (page.route answers or
// holds the API request), so no server is broken for them. Each test has its own account and page.
import t from '../tap.ts'
import { GOOD_PASSWORD, registeredUser, uniqueEmail } from '../helper.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'
import type { Page } from 'playwright-core'

const UNAVAILABLE = { code: 'SERVICE_UNAVAILABLE', message: 'the database is unavailable' }

t.test('loading, empty and error states', { skip }, async (t) => {
  const d = await startDashboard(t)

  const search = async (page: Page, q: string) => {
    await page.fill('#profile-q', q)
    await page.press('#profile-q', 'Enter')
  }

  await t.test('the reports list: loading, then unavailable (503), then empty after "try again"', async (t) => {
    const { email } = await registeredUser(d.app)
    const { context, page } = await d.newPage('states-list')
    t.teardown(() => context.close())
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(/\/api\/v1\/report\?/, async (route) => {
      await held
      await route.fulfill({ status: 503, contentType: 'application/json', headers: { 'retry-after': '5' }, body: JSON.stringify(UNAVAILABLE) })
    })
    await page.goto(PUBLIC_ORIGIN)
    await submitSignIn(page, { email })
    await page.locator('#report-list', { hasText: 'Loading your reports' }).waitFor(WAIT)
    t.equal(await page.getAttribute('#report-list', 'aria-busy'), 'true', 'loading, said to assistive technology too')
    await inspectView(t, page, 'home-loading')
    release()
    const error = page.locator('#reports .form-error')
    await error.getByText('The service is unavailable, try again shortly.').waitFor(WAIT)
    await inspectView(t, page, 'home-unavailable')
    await page.unroute(/\/api\/v1\/report\?/)
    await page.click('#reports-retry')
    await page.locator('#report-list', { hasText: 'No reports yet' }).waitFor(WAIT)
    t.equal(await error.textContent(), '', 'the error is gone')
  })

  await t.test('too many requests: the search says when to try again', async (t) => {
    const { page } = await d.signedInPage(t, 'states-429')
    await page.route(/\/api\/v1\/profiles\?/, (route) => route.fulfill({
      status: 429, contentType: 'application/json', headers: { 'retry-after': '42' }, body: JSON.stringify({ code: 'TOO_MANY_REQUESTS', message: 'too many requests' })
    }))
    await search(page, 'alex')
    const message = page.locator('#new-report .form-error')
    await message.getByText(/Too many requests\. Try again in 42 seconds \(at \d{1,2}[:.]\d{2}/).waitFor(WAIT)
    t.match(await message.textContent(), /42 seconds/, 'the Retry-After time')
    await inspectView(t, page, 'home-429')
  })

  await t.test('offline: a banner, and a message where a request failed', async (t) => {
    const { context, page } = await d.signedInPage(t, 'states-offline')
    await context.setOffline(true)
    const banner = page.locator('#offline-banner')
    await banner.waitFor(WAIT)
    t.match(await banner.textContent(), /You are offline/)
    await search(page, 'alex')
    await page.locator('#new-report .form-error', { hasText: 'You are offline' }).waitFor(WAIT)
    await inspectView(t, page, 'home-offline')
    await context.setOffline(false)
    await banner.waitFor({ state: 'detached', ...WAIT })
    t.equal(await page.locator('#offline-banner').count(), 0, 'back online: the banner is gone')
  })

  await t.test('an empty search and the showcase person', async (t) => {
    const { page } = await d.signedInPage(t, 'states-empty')
    t.equal(await page.getAttribute('#profile-q', 'placeholder'), 'Username or name, e.g. alex.rivera')
    await search(page, 'nobody-by-this-name')
    await page.locator('#profile-results .empty', { hasText: 'No profile matches.' }).waitFor(WAIT)
  })

  await t.test('sign-up without a mail server: "check your inbox" names the development outbox', async (t) => {
    const { context, page } = await d.newPage('states-outbox')
    t.teardown(() => context.close())
    const email = uniqueEmail('states-outbox')
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#tab-signup')
    await page.fill('#signup-email', email)
    await page.fill('#signup-password', GOOD_PASSWORD)
    await page.click('#signup-form button[type=submit]')
    await page.locator('#check-inbox').waitFor(WAIT)
    t.match(await page.textContent('#check-inbox'), /Check your inbox/)
    t.equal(await page.textContent('#check-inbox code'), d.app.config.mail.outboxDir, 'where the development mails are written')
  })

  t.same(d.problems.filter((p) => !/ERR_INTERNET_DISCONNECTED/.test(p)), [], 'no script error and no CSP violation')
})
