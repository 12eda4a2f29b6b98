// The dashboard in a real browser (headless Chromium driven by playwright-core) against a real
// listening server with a report worker: sign up and in, search, create and generate a report, watch
// its progress over the event stream, read every section, sort and page the friends, open
// the full timeline, reload (the session cookie restores the sign-in), sign out. Screenshots at
// laptop and phone widths go to test/artifacts/ (not committed).
// Each test starts from the seed alone: it signs up its own user, makes its own report through the
// API when it needs one, and signs in through the form in a browser profile of its own.
import t, { type Test } from '../tap.ts'
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import type { Db } from '../../src/db/client.ts'
import { eq } from 'drizzle-orm'
import { follows, friendships, profiles } from '../../src/db/schema/index.ts'
import { GOOD_PASSWORD, registeredUser, signedInUser, uniqueEmail } from '../helper.ts'
import { readyReport } from '../reports/report-wait.ts'
import { MONTH_START, seedReportData } from '../reports/seed.ts'
import { imageHost } from '../images/support.ts'
import { ARTIFACTS, DESKTOP, PHONE, PUBLIC_ORIGIN, signInThroughForm, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'

// The report's profile has a picture on an image host of its own (on loopback, so the server runs
// with OUTBOUND_ALLOW_PRIVATE); every other image URL of the seed fails, as missing images do.

/** JDoe on Instagram and john.doe on Facebook, in the order the page shows them */
const JOHN_DOE = [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }]

/**
 * On top of the report seed: twelve more Instagram friends of JDoe who share Tennis (fourteen with
 * common interests, two pages of ten), and one Facebook friend of john.doe who shares Memes and has
 * no red flag (so asking for red flags there is answered with common interests, adjusted).
 */
async function seedFriends (db: Db) {
  const pals = Array.from({ length: 12 }, (_, n) => String(n + 1).padStart(2, '0'))
  await db.insert(profiles).values([
    ...pals.map((n) => ({ id: `p-pal${n}`, source: 'ig' as const, username: `pal${n}`, fullname: `Pal ${n}`, image: null, link: `https://ig.example/pal${n}` })),
    { id: 'p-fbmate', source: 'fb', username: 'mememate', fullname: 'Meme Mate', image: null, link: 'https://fb.example/mememate' }
  ])
  await db.insert(follows).values([
    ...pals.map((n) => ({ profileId: `p-pal${n}`, accountId: 'a-2', since: MONTH_START(2), until: null })),
    { profileId: 'p-fbmate', accountId: 'a-4', since: MONTH_START(2), until: null }
  ])
  // one row per unordered pair, a < b
  await db.insert(friendships).values([...pals.map((n) => ({ a: 'p-1', b: `p-pal${n}` })), { a: 'p-4', b: 'p-fbmate' }])
}

// a full-page capture shows the sticky top bar where the page is scrolled to: capture from the top
const screenshot = async (page: Page, name: string) => {
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true })
}
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

t.test('the report dashboard in headless Chromium', { skip }, async (t) => {
  const host = await imageHost(t)
  const d = await startDashboard(t, { WORKERS: '1', OUTBOUND_ALLOW_PRIVATE: 'on' })
  await seedReportData(d.app.db)
  await seedFriends(d.app.db)
  await d.app.db.update(profiles).set({ image: `${host.origin}/p.png` }).where(eq(profiles.id, 'p-1'))

  /** the browser loads images from the dashboard's origin only: a request to an image host is a problem */
  const images = async (context: BrowserContext) => {
    await context.route('https://img.example/**', async (route) => {
      d.problems.push(`the browser asked another host for an image: ${route.request().url()}`)
      await route.abort('blockedbyclient')
    })
  }

  /** a browser profile of its own (signed out, the seed's picture served), closed when the test ends */
  const freshPage = async (t: Test, name: string, viewport = DESKTOP, options: BrowserContextOptions = {}) => {
    const { context, page } = await d.newPage(name, viewport, options)
    t.teardown(() => context.close())
    await images(context)
    return { context, page }
  }

  /** a new user signed in through the form on a page of their own, with nothing made yet */
  const signedInPage = async (t: Test, name: string) => {
    const user = await registeredUser(d.app)
    const { page } = await freshPage(t, name)
    await signInThroughForm(page, user)
    return { user, page }
  }

  /** a new user with a ready report on John Doe (their one credit spent), signed in at home */
  const withReport = async (t: Test, name: string, viewport = DESKTOP, options: BrowserContextOptions = {}) => {
    const user = await signedInUser(d.app)
    await readyReport(d.app, user.auth, JOHN_DOE)
    const { page } = await freshPage(t, name, viewport, options)
    await signInThroughForm(page, user)
    return { page }
  }

  /** the home's one report opened from the list, as a person would */
  const openTheReport = async (page: Page) => {
    await page.locator('#report-list .report-row').first().click()
    await page.locator('#section-categories-ig').waitFor(WAIT)
  }

  await t.test('the page and its security headers', async (t) => {
    const { page } = await freshPage(t, 'headers')
    const res = await page.goto(PUBLIC_ORIGIN)
    const csp = (await res!.allHeaders())['content-security-policy']
    t.match(csp, /script-src 'self'/, 'scripts from this origin only')
    t.notMatch(csp, /unsafe-eval/)
    await page.locator('#signin-form').waitFor(WAIT)
    t.equal(await page.title(), 'Sign in · Profile Interest Reports')
  })

  await t.test('sign up shows the server\'s field error, then signs in', async (t) => {
    const { context, page } = await freshPage(t, 'signup')
    const email = uniqueEmail('dashboard')
    await page.goto(PUBLIC_ORIGIN)
    await page.click('#tab-signup')
    await page.fill('#signup-email', email)
    await page.fill('#signup-password', 'short')
    await page.click('#signup-form button[type=submit]')
    await page.waitForFunction(() => document.querySelector('#signup-password-error')?.textContent !== '', null, WAIT)
    t.match(await page.textContent('#signup-password-error'), /\S/, 'the password error is under the password field')
    t.equal(await page.getAttribute('#signup-password', 'aria-invalid'), 'true')
    t.equal(await page.textContent('#signup-email-error'), '', 'nothing under the e-mail field')
    await page.screenshot({ path: `${ARTIFACTS}signup-error-desktop.png` })

    await page.fill('#signup-password', GOOD_PASSWORD)
    await page.click('#signup-form button[type=submit]')
    await page.locator('#sign-out').waitFor(WAIT)
    t.equal(await page.textContent('.account-email'), email)
    t.equal(await page.textContent('#credits'), '1 credit')
    t.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0, 'nothing kept in web storage')
    const cookies = await context.cookies(`${PUBLIC_ORIGIN}/api/v1/`)
    t.ok(cookies.some((c) => c.name === 'sid' && c.httpOnly && c.path === '/api/v1'), 'the browser kept the session cookie')
  })

  await t.test('search the profiles, create and generate a report, watch it live', async (t) => {
    const { page } = await signedInPage(t, 'create')
    await page.fill('#profile-q', 'jdoe')
    const hit = page.locator('#profile-results .result', { hasText: '@JDoe' })
    await hit.waitFor(WAIT)
    t.equal(await page.locator('#profile-results .result').count(), 1, 'one profile matches jdoe')
    t.match(await hit.textContent(), /John Doe/)
    await hit.getByRole('button', { name: 'Add' }).click()
    t.match(await page.textContent('#selected-profiles'), /@JDoe/)

    await page.selectOption('#profile-source', 'fb')
    await page.fill('#profile-q', 'john')
    const fb = page.locator('#profile-results .result', { hasText: '@john.doe' })
    await fb.waitFor(WAIT)
    t.equal(await page.locator('#profile-results .result').count(), 1, 'the network filter leaves the Facebook profile')
    await fb.getByRole('button', { name: 'Add' }).click()
    t.equal(await page.locator('#selected-profiles .chip').count(), 2)
    await screenshot(page, 'home-desktop')

    await page.click('#create-report')
    await page.waitForURL(/#\/report\/[0-9a-f-]{36}$/, WAIT)
    const progress = page.locator('#progress')
    await progress.waitFor(WAIT)
    await page.locator('#progress[data-progress="100"]').waitFor({ timeout: 90_000 })
    t.equal(await progress.getAttribute('data-status'), 'ready')
    t.equal(await page.getAttribute('#progress [role=progressbar]', 'aria-valuenow'), '100')
    t.match(await progress.textContent(), /Report ready/)
    t.equal(await progress.getAttribute('data-transport'), 'sse', 'the progress came through the event stream (cookie auth)')
    await page.locator('#report-status', { hasText: 'Ready' }).waitFor(WAIT)
  })

  await t.test('the report sections render', async (t) => {
    const { page } = await withReport(t, 'sections')
    await openTheReport(page)
    t.equal(await page.locator('.source-tabs [role=tab]').count(), 2, 'one tab per network')
    t.equal(await page.getAttribute('#tab-ig', 'aria-selected'), 'true')
    t.match(await page.textContent('.report-title'), /John Doe/)
    t.match(await page.textContent('.profile-card'), /@JDoe/)
    t.equal(await page.locator('.profile-card .avatar img').count(), 1, 'the profile picture')
    const picture = page.locator('.profile-card .avatar img')
    t.equal(await picture.getAttribute('src'), `/api/v1/images?url=${encodeURIComponent(`${host.origin}/p.png`)}`, 'loaded through the service')
    await page.waitForFunction(() => (document.querySelector('.profile-card .avatar img') as HTMLImageElement | null)?.complete === true, null, WAIT)
    t.ok(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth > 0), 'and shown')
    t.equal(host.hits['/p.png'], 1, 'the image host was asked once, by the server')

    const categories = await page.textContent('#categories-ig')
    t.match(categories, /Sport/)
    t.match(categories, /Boxing/)
    t.equal(await page.locator('#categories-ig .category').count(), 1, 'one category active this month')
    t.equal(await page.locator('#categories-ig .category .bar').count(), 1, 'drawn as a bar')
    const top = page.locator('#top-interests-ig li')
    t.equal(await top.count(), 2)
    t.match(await top.nth(0).textContent(), /Boxing/)
    t.match(await top.nth(1).textContent(), /Tennis/)
    t.equal(await page.textContent('#red-flags-ig .badge.flag'), 'Violence', 'the red flag carries its bucket badge')
    t.match(await page.textContent('#red-flags-ig'), /Boxing/)

    const months = page.locator('#diffs-ig .month')
    t.equal(await months.count(), 2, 'two months with changes')
    t.match(await months.nth(0).textContent(), /1 lost/)
    t.match(await months.nth(1).textContent(), /2 new/)
    const jazz = page.locator('#diffs-ig .interest', { hasText: 'Jazz' }).first()
    t.equal(await jazz.evaluate((el) => el.tagName), 'SPAN', 'an unactive interest is not clickable')
    t.match(await jazz.getAttribute('class'), /unactive/)
    const tennis = page.locator('#diffs-ig .interest', { hasText: 'Tennis' }).first()
    t.equal(await tennis.evaluate((el) => el.tagName), 'BUTTON')
    await tennis.click()
    const dialog = page.locator('#interest-dialog')
    await dialog.locator('.detail-row').first().waitFor(WAIT)
    t.match(await dialog.textContent(), /Sport/)
    t.match(await dialog.textContent(), /Tennis World/, 'the follow the interest is based on')
    t.equal(await dialog.locator('.avatar-initials').first().textContent(), 'TW', 'initials when the account has no image')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'hidden', ...WAIT })

    // the chart reads every month: the two of the preview are the whole timeline, nothing more to show
    await page.locator('#chart-diffs-ig').waitFor(WAIT)
    t.ok(await page.locator('#diffs-more-ig').isHidden(), 'no "Show the full timeline" when it would add nothing')
    t.equal(await months.count(), 2)
  })

  await t.test('the friends: sort toggle and paging', async (t) => {
    const { page } = await withReport(t, 'friends')
    await openTheReport(page)
    const common = page.locator('#friends-common-ig')
    const flags = page.locator('#friends-flags-ig')
    const people = page.locator('#friends-ig .person')
    const section = page.locator('#section-friends-ig')
    // the report's own first page is red flags first (sortByRedFlagsDefault: a friend has one); the
    // card opens on common interests, the longer list, and has no network picker of its own
    await page.locator('#friends-ig .person', { hasText: 'Alice' }).waitFor(WAIT)
    t.equal(await section.getAttribute('data-sort'), 'common')
    t.equal(await section.locator('select').count(), 0, 'no network picker: the page\'s tabs choose the network')
    t.equal(await common.getAttribute('aria-pressed'), 'true', 'common interests first')
    t.equal(await flags.getAttribute('aria-pressed'), 'false')
    t.equal(await people.count(), 10, 'a page of ten')
    t.match(await people.nth(0).textContent(), /Bob/, 'bob first: as many common interests, more red flags')
    t.match(await people.nth(1).textContent(), /Alice/)
    t.match(await section.locator('.pager').textContent(), /1–10 of 14/)
    await screenshot(page, 'report-desktop')

    await section.getByRole('button', { name: 'Next ›' }).click()
    await page.locator('#friends-ig .person', { hasText: 'Pal 12' }).waitFor(WAIT)
    t.equal(await people.count(), 4, 'the second page: the last four')
    t.match(await section.locator('.pager').textContent(), /11–14 of 14/)
    t.ok(await section.getByRole('button', { name: 'Next ›' }).isDisabled(), 'no third page')
    await section.getByRole('button', { name: '‹ Previous' }).click()
    await page.locator('#friends-ig .person', { hasText: 'Bob' }).waitFor(WAIT)
    t.equal(await people.count(), 10)

    await flags.click()
    await page.locator('#section-friends-ig[data-sort="red-flags"]').waitFor(WAIT)
    await page.waitForFunction(() => document.querySelectorAll('#friends-ig .person').length === 1, null, WAIT)
    t.equal(await flags.getAttribute('aria-pressed'), 'true')
    t.match(await people.first().textContent(), /Bob.*1 red flag/)
    t.equal(await people.first().locator('.avatar-initials').textContent(), 'BO')
    t.ok(await section.locator('.pager').isHidden(), 'one page: no pager')
  })

  await t.test('the friends follow the tabs, and a sort the server adjusts', async (t) => {
    const { page } = await withReport(t, 'friends-filter')
    await openTheReport(page)
    await page.locator('#friends-ig .person').first().waitFor(WAIT)
    await page.click('#friends-flags-ig')
    await page.locator('#section-friends-ig[data-sort="red-flags"]').waitFor(WAIT)

    await page.click('#tab-fb')
    await page.locator('#section-categories-fb').waitFor(WAIT)
    t.equal(await page.getAttribute('#tab-fb', 'aria-selected'), 'true')
    t.match(await page.textContent('#top-interests-fb'), /Memes/)
    t.match(await page.textContent('#section-flags-fb'), /No red-flag interests/)
    t.equal(await page.textContent('.profile-card .avatar-initials'), 'JD', 'initials for a profile without an image')
    t.equal(await page.getAttribute('#friends-common-fb', 'aria-pressed'), 'true', 'no red flags among the friends: common first')
    t.ok(await page.locator('#section-friends-fb .note').isHidden())
    await page.click('#friends-flags-fb')
    const note = page.locator('#section-friends-fb .note')
    await note.waitFor(WAIT)
    t.match(await note.textContent(), /showing friends with common interests instead/)
    t.equal(await page.getAttribute('#friends-common-fb', 'aria-pressed'), 'true', 'aligned with the served sort, not asked again')
    t.equal(await page.locator('#friends-fb .person').count(), 1)
    await page.click('#tab-ig')
    t.equal(await page.getAttribute('#friends-flags-ig', 'aria-pressed'), 'true', 'each tab keeps its state')
  })

  await t.test('a reload restores the session from the cookie', async (t) => {
    const { page } = await withReport(t, 'reload')
    await openTheReport(page)
    await page.reload()
    await page.locator('#section-categories-ig').waitFor(WAIT)
    t.ok(await page.locator('#sign-out').isVisible())
    t.equal(await page.locator('#progress').count(), 0, 'no progress for a report that is ready')
    await page.click('.back')
    const row = page.locator('#report-list .report-row')
    await row.first().waitFor(WAIT)
    t.equal(await row.count(), 1)
    t.match(await row.first().textContent(), /Ready/)
    t.equal(await page.textContent('#credits'), '0 credits', 'one credit spent')
  })

  await t.test('phone width', async (t) => {
    const { page: p } = await withReport(t, 'phone', PHONE, { isMobile: true, hasTouch: true, deviceScaleFactor: 2 })
    await p.locator('#report-list .report-row').first().waitFor(WAIT)
    t.equal(await overflow(p), 0, 'home: nothing wider than the phone screen')
    await screenshot(p, 'home-phone')
    await p.locator('#report-list .report-row').first().click()
    await p.locator('#section-friends-ig').waitFor(WAIT)
    await p.click('#friends-common-ig')
    await p.locator('#friends-ig .person', { hasText: 'Alice' }).waitFor(WAIT)
    t.equal(await overflow(p), 0, 'report: nothing wider than the phone screen')
    const tabs = await p.locator('.source-tabs [role=tab]').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().right))
    t.ok(tabs.every((right) => right <= PHONE.width), 'every profile tab in sight')
    await screenshot(p, 'report-phone')
  })

  await t.test('sign out', async (t) => {
    const { user, page } = await signedInPage(t, 'signout')
    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    await page.reload()
    await page.locator('#signin-form').waitFor(WAIT)
    t.equal(await page.locator('#sign-out').count(), 0, 'still signed out after a reload')
    await page.screenshot({ path: `${ARTIFACTS}signin-desktop.png` })
    await submitSignIn(page, { email: user.email, password: 'not the password' })
    await page.waitForFunction(() => document.querySelector('#signin-password-error')?.textContent !== '', null, WAIT)
    t.equal(await page.textContent('#signin-password-error'), 'Wrong e-mail or password')
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
