// Watches and alerts in the dashboard, in headless Chromium against a listening server: a ready
// report's watch toggle, the bell's count rising while the page is open as alerts are raised (by the
// service's own recordAlerts, as the alert worker raises them), the alerts page (months newest
// first, red flags first within a month) and its link to the report's changes, marking read one and
// all, and the watch limit shown before it is hit and when a 402 refuses a watch.
import t from '../tap.ts'
import { createHmac, hkdfSync } from 'node:crypto'
import type { Page } from 'playwright-core'
import type { FastifyInstance } from 'fastify'
import type { Interest } from '../../schemas/report.ts'
import type { NewAlert } from '../../src/services/alerts/record.ts'
import { signedInUser, type SignedInUser } from '../helper.ts'
import { readyReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { raise, userIdOf } from '../watches/support.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, WAIT } from './browser.ts'

const JOHN_DOE = [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }]

const interest = (id: string, name: string, source: 'ig' | 'fb', redFlag?: string): Interest =>
  ({ id, name, share: 0.5, relative: 1, unactive: false, source, category: redFlag ?? 'Sport', ...(redFlag ? { redCatId: 'rf-violence' } : {}) })

const monthFrom = (back: number) => {
  const d = new Date()
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1)).toISOString().slice(0, 7)
}

/** one alert on John Doe's profile of the alert's network, raised at `at` */
async function raiseOne (app: FastifyInstance, alert: Omit<NewAlert, 'profileId' | 'username'> & { username?: string }, at: Date) {
  await raise(app, [{ profileId: alert.source === 'ig' ? 'p-1' : 'p-4', username: alert.source === 'ig' ? 'JDoe' : 'john.doe', ...alert }], at)
}

async function api (app: FastifyInstance, user: SignedInUser, method: 'GET' | 'POST' | 'DELETE', url: string) {
  return await app.inject({ method, url: `/api/v1${url}`, headers: user.auth })
}

/** a ready report row of the user's, written straight into the table (its page is never opened) */
async function readyRow (app: FastifyInstance, userId: string): Promise<string> {
  const [row] = await app.database.query<{ id: string }>(
    "insert into reports (user_id, status, profiles, generated_at) values ($1, 'ready', $2::jsonb, now()) returning id",
    [userId, JSON.stringify([{ source: 'ig', profileId: 'p-2', username: 'alice', fullname: null, image: null }])])
  return row.id
}

const unread = async (page: Page) => await page.locator('#alerts-bell').getAttribute('data-unread')

t.test('watch a report, see its alerts arrive on the bell, read them on the alerts page', { skip }, async (t) => {
  const { app, problems, newPage } = await startDashboard(t, { WORKERS: '1', WATCH_MAX: '2' })
  await seedReportData(app.db)
  const user = await signedInUser(app)
  const userId = userIdOf(user.token)
  const reportId = await readyReport(app, user.auth, JOHN_DOE)

  const { context, page } = await newPage('alerts')
  t.teardown(() => context.close())
  const [name, value] = user.cookie.split('=')
  await context.addCookies([{ name, value, domain: 'localhost', path: '/api/v1', httpOnly: true, secure: true, sameSite: 'Strict' }])
  await page.goto(`${PUBLIC_ORIGIN}/#/report/${reportId}`)

  // the toggle, with the limit before any watch
  const toggle = page.locator('#watch-toggle')
  await page.locator('#watch-status', { hasText: '0 of 2 watches' }).waitFor(WAIT)
  t.equal(await toggle.getAttribute('aria-pressed'), 'false')
  t.equal(await toggle.textContent(), 'Watch')
  await toggle.click()
  await page.locator('#watch-status', { hasText: '1 of 2 watches' }).waitFor(WAIT)
  t.equal(await toggle.getAttribute('aria-pressed'), 'true', 'pressed once watched')
  const watches = (await api(app, user, 'GET', '/watches')).json()
  t.same(watches.items.map((w: { reportId: string }) => w.reportId), [reportId], 'the API has the watch')
  const watch = { userId, watchId: watches.items[0].id as string, reportId }
  await inspectView(t, page, 'alerts-watching')

  // alerts raised while the page is open reach the bell through the stream
  t.equal(await unread(page), '0')
  const next = monthFrom(-1)
  const earlier = monthFrom(1)
  const boxing = interest('i-boxing', 'Boxing', 'ig', 'Violence')
  const memes = interest('i-memes', 'Memes', 'fb')
  await raiseOne(app, { ...watch, source: 'ig', month: earlier, new: [], lost: [interest('i-jazz', 'Jazz', 'ig')], newRedFlags: [] }, new Date(Date.now() - 3000))
  await page.locator('#alerts-bell[data-unread="1"]').waitFor(WAIT)
  t.pass('the bell counts the first alert without a reload')
  // the red-flag alert is raised before the other one of its month: the page still lists it first
  await raiseOne(app, { ...watch, source: 'ig', month: next, new: [boxing, interest('i-tennis', 'Tennis', 'ig')], lost: [], newRedFlags: [boxing] }, new Date(Date.now() - 2000))
  await raiseOne(app, { ...watch, source: 'fb', month: next, new: [memes], lost: [], newRedFlags: [] }, new Date(Date.now() - 1000))
  await page.locator('#alerts-bell[data-unread="3"]').waitFor(WAIT)
  t.match(await page.locator('#alerts-bell').getAttribute('aria-label'), /3 unread/, 'the bell says the count in words')
  t.match(await page.locator('#alerts-live').textContent(), /New alert: @john\.doe on Facebook/, 'the last alert is announced')

  // the alerts page: months newest first, red flags first within a month
  await page.click('#alerts-bell')
  await page.locator('.alert-card').nth(2).waitFor(WAIT)
  t.equal(await page.locator('#alerts-bell').getAttribute('aria-current'), 'page')
  const cards = await page.locator('.alert-card').evaluateAll((list) => list.map((el) => ({
    title: el.querySelector('.alert-title')?.textContent ?? '',
    red: el.querySelector('.alert-red')?.textContent ?? '',
    month: el.querySelector('time')?.getAttribute('datetime'),
    link: el.querySelector('a.button')?.getAttribute('href')
  })))
  t.same(cards.map((c) => [c.month, c.title.split(' ')[0]]), [[next, '@JDoe'], [next, '@john.doe'], [earlier, '@JDoe']], 'newest month first, its red flag first')
  t.match(cards[0].red, /New red flags \(1\)Boxing/)
  t.equal(cards[0].link, `#/report/${reportId}/diffs/ig/${next}`, 'the alert links to its network\'s changes in the report')
  t.equal(await page.locator('.alert-month-label').count(), 2, 'one heading per month')
  await inspectView(t, page, 'alerts-page')

  // the link opens the report on that network's changes
  await page.locator('.alert-card').first().locator('a.button').click()
  await page.locator('#section-diffs-ig').waitFor(WAIT)
  await page.waitForFunction(() => document.activeElement?.id === 'section-diffs-ig', null, WAIT)
  t.equal(await page.locator('#tab-ig').getAttribute('aria-selected'), 'true', 'the alert\'s network is the tab shown')
  await page.locator('#alert-month-note').waitFor(WAIT)
  t.match(await page.textContent('#alert-month-note'), /^This report covers up to .+; .+ came later\. The alert lists that month's changes, and a report generated now on these profiles shows them\.$/,
    'the report, generated before the alert\'s month, says so, and that a report generated now shows it')
  const [top, bar, scrolled] = await page.evaluate(() => [
    document.getElementById('section-diffs-ig')!.getBoundingClientRect().top,
    document.querySelector('.topbar')!.getBoundingClientRect().bottom,
    window.scrollY
  ])
  t.ok(scrolled > 0 && top >= bar, `the changes are scrolled to, their heading below the sticky top bar (${top} >= ${bar}, scrolled ${scrolled})`)

  // mark one read, then all
  await page.goBack()
  await page.locator('.alert-card').nth(2).waitFor(WAIT)
  await page.locator('.alert-card').nth(1).getByRole('button', { name: 'Mark as read' }).click()
  await page.locator('#alerts-bell[data-unread="2"]').waitFor(WAIT)
  t.equal((await api(app, user, 'GET', '/alerts?unread=true')).json().total, 2, 'the API has one alert read')
  await page.click('#alerts-read-all')
  await page.locator('#alerts-bell[data-unread="0"]').waitFor(WAIT)
  t.same(await page.locator('.alert-card').evaluateAll((list) => list.map((el) => (el as HTMLElement).dataset.read)), ['true', 'true', 'true'])
  t.ok(await page.locator('#alerts-read-all').isDisabled(), 'nothing left to mark')
  t.equal((await api(app, user, 'GET', '/alerts?limit=1')).json().unread, 0)

  // the limit: another report watched elsewhere fills it, and a watch from the page is refused
  await page.goto(`${PUBLIC_ORIGIN}/#/report/${reportId}`)
  await page.locator('#watch-status', { hasText: '1 of 2 watches' }).waitFor(WAIT)
  await toggle.click()
  await page.locator('#watch-status', { hasText: '0 of 2 watches' }).waitFor(WAIT)
  t.equal(await toggle.getAttribute('aria-pressed'), 'false', 'unwatched')
  for (let n = 0; n < 2; n++) {
    const other = await readyRow(app, userId)
    t.equal((await api(app, user, 'POST', `/report/${other}/watch`)).statusCode, 201)
  }
  await toggle.click()
  await page.locator('.watch-message', { hasText: 'You already watch as many reports as your plan allows (2).' }).waitFor(WAIT)
  await page.locator('#watch-status', { hasText: '2 of 2 watches' }).waitFor(WAIT)
  t.ok(await toggle.isDisabled(), 'at the limit the toggle is disabled')
  t.match(await page.locator('#watch-status').textContent(), /as many reports as your plan allows/)
  const billing = (await api(app, user, 'GET', '/client-config')).json().billing
  if (billing) t.equal(await page.locator('#watch-billing').getAttribute('href'), '#/account', 'with the way to a subscription')
  else t.match(await page.locator('#watch-status').textContent(), /Stop watching another report/)
  await inspectView(t, page, 'alerts-watch-limit')

  t.same(problems, [], 'no script error or CSP violation')
})

t.test("the digest's unsubscribe link: the page asks, and only its button stops the digest, signed out", { skip }, async (t) => {
  const { app, problems, newPage } = await startDashboard(t)
  const user = await signedInUser(app)
  const userId = userIdOf(user.token)
  const digest = async () => (await api(app, user, 'GET', '/alerts/mail')).json().digest as boolean
  t.equal(await digest(), true, 'the digest is on to begin with')

  const { context, page } = await newPage('unsubscribe')
  t.teardown(() => context.close())
  const token = app.services.unsubscribeTokens.sign(userId)
  await page.goto(`${PUBLIC_ORIGIN}/unsubscribe/${token}`)
  await page.locator('#unsubscribe-confirm').waitFor(WAIT)
  t.equal(page.url(), `${PUBLIC_ORIGIN}/#/unsubscribe`, 'the token is out of the address bar')
  t.equal(await digest(), true, 'opening the link changes nothing')
  await inspectView(t, page, 'unsubscribe-ask')

  await page.click('#unsubscribe-confirm')
  await page.locator('#unsubscribe-view[data-state="unsubscribed"]').waitFor(WAIT)
  t.match(await page.textContent('#unsubscribe-view h1'), /No more digest mails/)
  t.equal(await digest(), false, 'the button stopped the digest, without a sign-in')

  // a link that was tampered with says so
  await page.goto(`${PUBLIC_ORIGIN}/unsubscribe/${token.slice(0, -2)}xx`)
  await page.click('#unsubscribe-confirm')
  await page.locator('#unsubscribe-view[data-state="invalid"]').waitFor(WAIT)
  t.match(await page.textContent('#unsubscribe-view h1'), /not valid/)

  // a genuine link that no longer works (here one of the earlier form, without an issue time, which
  // is expired as a link past its 90 days is) says so, and where to turn the digest off
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(app.config.mfa.encryptionKey), Buffer.alloc(0), 'pir alert digest unsubscribe v1', 32))
  await page.goto(`${PUBLIC_ORIGIN}/unsubscribe/${userId}.${createHmac('sha256', key).update(`alert-digest-unsubscribe:${userId}`).digest('base64url')}`)
  await page.click('#unsubscribe-confirm')
  await page.locator('#unsubscribe-view[data-state="expired"]').waitFor(WAIT)
  t.match(await page.textContent('#unsubscribe-view h1'), /no longer works/)
  t.match(await page.textContent('#unsubscribe-view'), /90 days.*account page/)
  t.same(problems, [], 'no script error or CSP violation')
})
