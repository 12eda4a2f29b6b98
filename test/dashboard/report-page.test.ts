// The report page in headless Chromium (playwright-core) against a real listening server with a
// report worker: the generation stepper, the charts (as many marks as the API's JSON has), a friend's
// detail, "show more" only when there is more, the loading, failed, no-friends and no-diffs states,
// the JSON and CSV downloads, axe-core on the page in light and dark, screenshots at laptop and phone
// widths, and a print to PDF.
// Each test signs in its own user and makes its own report from the seed; the browser receives the
// session cookie, as after a sign-in, and opens the report's address.
import t, { type Test } from '../tap.ts'
import { mkdirSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import type { BrowserContext, Page } from 'playwright-core'
import type { Db } from '../../src/db/client.ts'
import { accountInterests, accounts, follows, friendships, interests, profiles, reports } from '../../src/db/schema/index.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport, readyReport } from '../reports/report-wait.ts'
import { MONTH_START, seedReportData } from '../reports/seed.ts'
import { ARTIFACTS, DESKTOP, launchChromium, PHONE, PUBLIC_ORIGIN, skip, WAIT } from './browser.ts'

const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url))
const STAGES = ['queued', 'collecting', 'interests', 'friends', 'diffs', 'ready']

/**
 * On top of the report seed: a TikTok profile with no friend and no change over the months
 * (@lonely), and an X profile (@busybee) with a new interest in each of the last eight months, one
 * lost, and twelve friends who share one of them (two pages of friends, more months than the
 * report's preview); and @alex.rivera on all five networks, one page followed on each.
 */
/** the five networks and a page followed on each */
const FIVE = [['ig', 'a-1'], ['fb', 'a-4'], ['tt', 'a-tt'], ['tw', 'a-x1'], ['li', 'a-li']] as const

async function seedMore (db: Db) {
  const eight = Array.from({ length: 8 }, (_, n) => n + 1)
  await db.insert(interests).values(eight.map((n) => ({ id: `i-x${n}`, name: `Hobby ${n}`, categoryId: n % 2 ? 'c-sport' : 'c-music', redFlagId: n === 3 ? 'rf-violence' : null })))
  await db.insert(accounts).values([
    { id: 'a-tt', source: 'tt', username: 'tennisclips', fullname: 'Tennis Clips', image: null },
    { id: 'a-li', source: 'li', username: 'tennispros', fullname: 'Tennis Pros', image: null },
    ...eight.map((n) => ({ id: `a-x${n}`, source: 'tw' as const, username: `hobby${n}`, fullname: `Hobby ${n}`, image: null }))
  ])
  await db.insert(accountInterests).values([
    { accountId: 'a-tt', interestId: 'i-tennis' },
    { accountId: 'a-li', interestId: 'i-tennis' },
    ...eight.map((n) => ({ accountId: `a-x${n}`, interestId: `i-x${n}` }))
  ])
  const pals = Array.from({ length: 12 }, (_, n) => String(n + 1).padStart(2, '0'))
  await db.insert(profiles).values([
    { id: 'p-lonely', source: 'tt', username: 'lonely', fullname: 'Lonely Larry', image: null, link: 'https://tt.example/lonely' },
    { id: 'p-busy', source: 'tw', username: 'busybee', fullname: 'Busy Bee', image: null, link: 'https://tw.example/busybee' },
    ...pals.map((n) => ({ id: `p-bee${n}`, source: 'tw' as const, username: `bee${n}`, fullname: `Bee ${n}`, image: null, link: `https://tw.example/bee${n}` })),
    ...FIVE.map(([source]) => ({ id: `p-alex-${source}`, source, username: 'alex.rivera', fullname: 'Alex Rivera', image: null, link: `https://${source}.example/alex.rivera` }))
  ])
  await db.insert(follows).values([
    { profileId: 'p-lonely', accountId: 'a-tt', since: MONTH_START(3), until: null },
    // first follow 9 months back, then one new account a month; Hobby 2 is unfollowed a month ago
    ...eight.map((n) => ({ profileId: 'p-busy', accountId: `a-x${n}`, since: MONTH_START(n === 1 ? 9 : 9 - n), until: n === 2 ? MONTH_START(1) : null })),
    ...pals.map((n) => ({ profileId: `p-bee${n}`, accountId: 'a-x1', since: MONTH_START(2), until: null })),
    ...FIVE.map(([source, accountId]) => ({ profileId: `p-alex-${source}`, accountId, since: MONTH_START(3), until: null }))
  ])
  await db.insert(friendships).values(pals.map((n) => ({ a: 'p-bee' + n, b: 'p-busy' })).map(({ a, b }) => a < b ? { a, b } : { a: b, b: a }))
}

t.test('the report page in headless Chromium', { skip }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true })
  // more sign-ups than one address may make in the limit's window (RATE_LIMIT_SIGNUP_IP, 10)
  const app = await build(t, { WORKERS: '1', PUBLIC_URL: PUBLIC_ORIGIN, RATE_LIMIT_SIGNUP_IP: '100' })
  await seedReportData(app.db)
  await seedMore(app.db)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const browser = await launchChromium(port)
  t.teardown(() => browser.close())

  const problems: string[] = []

  /** a signed-in user's browser page, from its own context (cookies, colour scheme, size) */
  async function signedInPage (t: Test, user: { cookie?: string }, opts: { viewport?: typeof DESKTOP, colorScheme?: 'light' | 'dark', phone?: boolean } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: opts.viewport ?? DESKTOP,
      colorScheme: opts.colorScheme ?? 'light',
      ...(opts.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      acceptDownloads: true
    })
    t.teardown(() => context.close())
    const [name, value] = user.cookie!.split('=')
    await context.addCookies([{ name, value, domain: 'localhost', path: '/api/v1', httpOnly: true, secure: true, sameSite: 'Strict' }])
    await context.route('https://img.example/**', (route) => route.abort('namenotresolved'))
    const page = await context.newPage()
    page.on('pageerror', (err) => problems.push(`${t.name}: page error: ${err.message}`))
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|SyntaxError|TypeError|ReferenceError/.test(msg.text())) problems.push(`${t.name}: ${msg.text()}`)
    })
    return page
  }

  const api = async (auth: Record<string, string>, url: string) => {
    const res = await app.inject({ url: `/api/v1${url}`, headers: auth })
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }

  /** a new user with a report generated by the API (ready before the page opens) */
  async function userWithReport (profilesOf: Array<{ source: string, username: string }>) {
    const user = await signedInUser(app)
    return { user, id: await readyReport(app, user.auth, profilesOf) }
  }

  const openReport = async (page: Page, id: string) => {
    await page.goto(`${PUBLIC_ORIGIN}/#/report/${id}`)
    await page.locator('.report-title').waitFor(WAIT)
  }

  const axe = async (page: Page) => {
    // evaluated through the DevTools protocol: the page's CSP (scripts from its origin only) stays on
    await page.evaluate(readFileSync(AXE, 'utf8'))
    const result = await page.evaluate(async () => {
      const run = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Array<{ id: string, impact: string, nodes: Array<{ target: string[], any: Array<{ message: string }> }> }> }> } }).axe.run
      const r = await run(document, { resultTypes: ['violations'] })
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} ${n.any[0]?.message ?? ''}`) }))
    })
    return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  }

  const screenshot = async (page: Page, name: string) => {
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true })
  }

  await t.test('generate from the page: the stepper shows each stage, never goes back, then folds away', async (t) => {
    const user = await signedInUser(app)
    const id = await createReport(app, user.auth, [{ source: 'ig', username: 'jdoe' }])
    const page = await signedInPage(t, user)
    // every change of the stepper, recorded in the page from its first paint
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { stepperSeen: string[] }).stepperSeen = seen
      new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target as HTMLElement
          if (el.id === 'progress') seen.push(`${el.dataset.stage}:${el.dataset.progress}`)
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-stage', 'data-progress'] })
    })
    await openReport(page, id)
    await page.locator('#report-draft').waitFor(WAIT)
    await page.click('#generate-report')
    await page.locator('#progress .stepper').waitFor(WAIT)
    await page.locator('#progress[data-status="ready"]').waitFor({ state: 'attached', timeout: 90_000 })
    await page.locator('#section-categories-ig').waitFor(WAIT)
    await page.locator('#progress').waitFor({ state: 'hidden', ...WAIT })
    t.equal(await page.locator('#progress').count(), 1, 'the finished card is folded away, not removed')
    t.equal(await page.locator('#progress .step.done').count(), STAGES.length, 'every stage done')

    const seen = await page.evaluate(() => (window as unknown as { stepperSeen: string[] }).stepperSeen)
    t.ok(seen.length > 0, `the stepper moved: ${seen.join(' ')}`)
    const ranks = seen.map((s) => [STAGES.indexOf(s.split(':')[0]), Number(s.split(':')[1])])
    t.ok(ranks.every(([stage]) => stage >= 0), 'only known stages')
    t.ok(ranks.every(([stage, p], n) => n === 0 || (stage >= ranks[n - 1][0] && p >= ranks[n - 1][1])), 'never back: stages and percentages only rise')
    t.same(ranks.at(-1), [STAGES.length - 1, 100], 'it ends on ready at 100%')
    t.equal(await page.textContent('#report-status'), 'Ready')

    // the same stepper fed out of order, as an interleaved stream and poll could: older updates are ignored
    const replay = await page.evaluate(async () => {
      const { createStepper } = await import('/charts/stepper.js' as string)
      const s = createStepper()
      const steps = [
        { status: 'generating', stage: 'interests', progress: 40 },
        { status: 'generating', stage: 'collecting', progress: 10 },
        { status: 'generating', stage: null, progress: 10 },
        { status: 'queued', stage: 'queued', progress: 0 },
        { status: 'generating', stage: null, progress: 70 },
        { status: 'generating', stage: 'interests', progress: 40 },
        { status: 'ready', stage: 'diffs', progress: 100 },
        { status: 'generating', stage: 'friends', progress: 70 }
      ]
      return steps.map((u) => [s.set(u), s.node.dataset.stage, s.node.dataset.progress].join(' '))
    })
    t.same(replay, [
      'true interests 40', 'false interests 40', 'false interests 40', 'false interests 40',
      'true friends 70', 'false friends 70', 'true ready 100', 'false ready 100'
    ], 'an older stage or percentage changes nothing; after ready nothing does')
  })

  await t.test('the charts have as many marks as the API has data, and open their lists', async (t) => {
    const { user, id } = await userWithReport([{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }])
    const page = await signedInPage(t, user)
    await openReport(page, id)
    await page.locator('#chart-categories-ig').waitFor(WAIT)
    await page.locator('#chart-diffs-ig').waitFor(WAIT)

    const tree = (await api(user.auth, `/report/${id}/interests?source=ig`)).items as Array<{ id: string, interests: Array<{ redCatId?: string }> }>
    t.equal(await page.locator('#chart-categories-ig rect.mark-category').count(), tree.length, 'a bar per category')
    t.equal(await page.locator('#chart-categories-ig rect.mark-flag').count(), tree.filter((c) => c.interests.some((i) => i.redCatId)).length, 'a hatched part per category with red flags')
    t.ok(tree.length > 0)

    const diffs = await api(user.auth, `/report/${id}/diffs?source=ig&limit=100`)
    t.equal(await page.locator('#chart-diffs-ig .chart-col').count(), diffs.items.length, 'a column per month')
    t.equal(await page.locator('#chart-diffs-ig rect.mark-new').count(), diffs.items.filter((d: { totalNew: number }) => d.totalNew > 0).length, 'a bar above for each month with new interests')
    t.equal(await page.locator('#chart-diffs-ig rect.mark-lost').count(), diffs.items.filter((d: { totalLost: number }) => d.totalLost > 0).length, 'a bar below for each month with lost ones')

    const report = await api(user.auth, `/report/${id}`)
    t.equal(await page.locator('#section-networks rect.mark').count(), report.items.length * 3, 'three measures per network')
    t.match(await page.textContent('#section-networks table'), /Instagram \(@JDoe\)/, 'the networks chart as a table')
    t.equal(await page.locator('#section-networks table tbody tr').count(), report.items.length)

    // the keyboard opens a month: focus its column, press Enter
    const month = diffs.items[0]
    const column = page.locator(`#chart-diffs-ig .chart-col[data-month="${month.date}"]`)
    await column.focus()
    await page.keyboard.press('Enter')
    const panel = page.locator('#diffs-month-ig')
    await panel.waitFor(WAIT)
    t.equal(await column.getAttribute('aria-pressed'), 'true')
    for (const i of [...month.new, ...month.lost]) t.match(await panel.textContent(), i.name, `${month.date} lists ${i.name}`)

    // Space on a category bar opens that category in the list
    const category = tree[0]
    await page.locator(`#chart-categories-ig [data-category="${category.id}"]`).focus()
    await page.keyboard.press(' ')
    await page.locator(`#categories-ig [data-category="${category.id}"] details[open]`).waitFor(WAIT)
    t.pass('the category is open in the list')

    // the text alternatives
    t.equal(await page.locator('#section-categories-ig .chart-table tbody tr').count(), tree.length, 'the categories as a table')
    t.equal(await page.locator('#section-diffs-ig .chart-table tbody tr').count(), diffs.items.length, 'the months as a table')
    t.equal(await page.locator('#chart-categories-ig [role=button][tabindex="0"][aria-label]').count(), tree.length, 'every bar a named, focusable button')

    // the other network's panel was built at once, with its own charts
    await page.click('#tab-fb')
    await page.locator('#chart-categories-fb').waitFor(WAIT)
    const fbTree = (await api(user.auth, `/report/${id}/interests?source=fb`)).items
    t.equal(await page.locator('#chart-categories-fb rect.mark-category').count(), fbTree.length)
    t.ok(await page.locator('#item-panel-ig').isHidden(), 'one network shown at a time')
  })

  await t.test('a friend opens what they share; show more only when there is more', async (t) => {
    const { user, id } = await userWithReport([{ source: 'ig', username: 'jdoe' }])
    const page = await signedInPage(t, user)
    await openReport(page, id)
    const friends = await api(user.auth, `/report/${id}/friends?source=ig`)
    const bob = friends.items.find((f: { username: string }) => f.username === 'bob')
    const row = page.locator('#friends-ig .person', { hasText: 'Bob' })
    await row.waitFor(WAIT)
    const shared = await api(user.auth, `/report/${id}/friends/${bob.id}?source=ig`)
    t.equal(shared.common.length, bob.count, 'the API lists as many shared interests as it counts')
    t.equal(shared.redFlags.length, bob.redFlagsCount)
    const open = row.getByRole('button', { name: 'What Bob shares' })
    t.equal(await open.getAttribute('aria-expanded'), 'false')

    // the first try fails (the network drops the request): the panel says so and offers to try again
    const detailUrl = `**/api/v1/report/${id}/friends/${bob.id}?source=ig`
    await page.route(detailUrl, (route) => route.abort('connectionrefused'))
    await open.click()
    t.equal(await open.getAttribute('aria-expanded'), 'true')
    await row.locator('.friend-error', { hasText: /could not be reached/ }).waitFor(WAIT)
    await page.unroute(detailUrl)

    // the second is held a moment: the loading state shows, then the lists
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(detailUrl, async (route) => { await held; await route.continue() })
    await row.getByRole('button', { name: 'Try again' }).click()
    await row.locator('.friend-loading').waitFor(WAIT)
    release()
    const detail = row.locator('.friend-detail')
    await detail.waitFor(WAIT)
    await page.unroute(detailUrl)
    const lists = detail.locator('.friend-interests')
    t.equal(await lists.count(), 2, 'both lists shown')
    const names = async (at: number) => (await lists.nth(at).locator('li > :first-child').allTextContents()).map((x) => x.trim())
    const badges = async (at: number) => (await lists.nth(at).locator('li .badge').allTextContents()).map((x) => x.trim())
    const nameOf = (i: { name: string }) => i.name
    const badgeOf = (i: { category?: string }) => i.category
    t.same(await names(0), shared.common.map(nameOf), 'the shared interests are the API\'s, in its order')
    t.same(await badges(0), shared.common.map(badgeOf).filter(Boolean), 'with their category badges')
    t.same(await names(1), shared.redFlags.map(nameOf), 'their red flags are the API\'s')
    t.same(await badges(1), shared.redFlags.map(badgeOf).filter(Boolean))
    t.ok(shared.common.length > 0 && shared.redFlags.length > 0, 'Bob has both, so neither list is vacuous')
    // a click on the row itself closes it again
    await row.locator('.fullname').click()
    await detail.waitFor({ state: 'hidden', ...WAIT })

    // one page of friends and two months of changes: nothing more to show
    await page.locator('#chart-diffs-ig').waitFor(WAIT)
    t.ok(await page.locator('#section-friends-ig .pager').isHidden(), `${friends.total} friends: no pager`)
    t.ok(await page.locator('#diffs-more-ig').isHidden(), 'the timeline preview is the whole timeline: no "Show the full timeline"')
    t.notOk(friends.hasMore)

    // twelve friends and eight months: both offer more, and give it
    const busy = await userWithReport([{ source: 'tw', username: 'busybee' }])
    const p2 = await signedInPage(t, busy.user)
    await openReport(p2, busy.id)
    const busyFriends = await api(busy.user.auth, `/report/${busy.id}/friends?source=tw&limit=10`)
    const busyDiffs = await api(busy.user.auth, `/report/${busy.id}/diffs?source=tw&limit=100`)
    t.ok(busyFriends.hasMore && busyDiffs.total > 6, 'the seed has more than a page of each')
    await p2.locator('#section-friends-tw .pager').waitFor(WAIT)
    t.match(await p2.textContent('#section-friends-tw .pager'), new RegExp(`1–10 of ${busyFriends.total}`))
    const more = p2.locator('#diffs-more-tw')
    await more.waitFor(WAIT)
    t.equal(await p2.locator('#diffs-tw .month').count(), 6, 'the preview: six months')
    await more.click()
    await more.waitFor({ state: 'hidden', ...WAIT })
    t.equal(await p2.locator('#diffs-tw .month').count(), busyDiffs.total, 'the full timeline: every month')

    // on a phone the chart's month labels do not run into each other, the newest one among them: the
    // page's own chart module drawn for runs of 8 to 23 months (a seed of each would be slow)
    await p2.setViewportSize(PHONE)
    for (const n of [8, 10, 14, 23]) {
      const labels = await p2.evaluate(async (n) => {
        const { diffBars } = await import('/charts/diff-bars.js' as string) as { diffBars: (months: object[], opts: object) => HTMLElement }
        const months = Array.from({ length: n }, (_, i) => {
          const m = 2024 * 12 + n - 1 - i
          return { date: `${Math.floor(m / 12)}-${String(m % 12 + 1).padStart(2, '0')}`, new: [], lost: [], totalNew: 1 + i % 3, totalLost: i % 2 }
        })
        const figure = diffBars(months, { source: 'zz', onSelect: () => {} })
        document.querySelector('#section-diffs-tw')!.append(figure)
        const ticks = [...figure.querySelectorAll('.chart-tick')]
        const shown = ticks.filter((el) => getComputedStyle(el).display !== 'none')
        const boxes = shown.map((el) => { const r = el.getBoundingClientRect(); return { text: el.textContent, left: r.left, right: r.right } })
        const newest = shown.at(-1) === ticks.at(-1) && Number(ticks.at(-1)!.getAttribute('x')!.replace('%', '')) > 100 * (1 - 1 / n)
        figure.remove()
        return { boxes, newest }
      }, n)
      t.ok(labels.boxes.length >= 3, `${n} months: ${labels.boxes.length} labels`)
      t.ok(labels.newest, `${n} months: the newest month is labelled`)
      t.same(labels.boxes.slice(1).filter((l, i) => l.left < labels.boxes[i].right + 4), [], `${n} months: at least 4 px between neighbouring labels`)
    }
  })

  await t.test('five networks: the profile tabs fit a laptop\'s width', async (t) => {
    const { user, id } = await userWithReport(FIVE.map(([source]) => ({ source, username: 'alex.rivera' })))
    const page = await signedInPage(t, user)
    await openReport(page, id)
    const tabs = page.locator('.source-tabs')
    await tabs.locator('[role=tab]').nth(4).waitFor(WAIT)
    t.equal(await tabs.evaluate((el) => el.scrollWidth - el.clientWidth), 0, 'no tab scrolled out of sight')
    t.equal(await page.getAttribute('#tab-li', 'title'), 'LinkedIn: @alex.rivera', 'the whole username in each tab\'s title')
  })

  await t.test('a failed report offers to generate it again', async (t) => {
    const user = await signedInUser(app)
    const id = await createReport(app, user.auth, [{ source: 'ig', username: 'jdoe' }])
    await app.db.update(reports).set({ status: 'failed', error: 'report generation failed' }).where(eq(reports.id, id))
    const page = await signedInPage(t, user)
    await openReport(page, id)
    const failed = page.locator('#report-failed')
    await failed.waitFor(WAIT)
    t.match(await failed.textContent(), /Generation failed/)
    t.equal(await page.textContent('#report-status'), 'Failed')
    await failed.getByRole('button', { name: 'Generate again' }).click()
    await page.locator('#section-categories-ig').waitFor({ timeout: 90_000 })
    t.equal(await page.textContent('#report-status'), 'Ready', 'generated again, and ready')
  })

  await t.test('the header reads right in every status: the names, the status, when; never "null"', async (t) => {
    const user = await signedInUser(app)
    const page = await signedInPage(t, user)
    const LABELS = { draft: 'Draft', queued: 'Queued', generating: 'Generating', failed: 'Failed', ready: 'Ready' } as const
    for (const status of ['draft', 'queued', 'generating', 'failed', 'ready'] as const) {
      const id = status === 'ready' ? await readyReport(app, user.auth) : await createReport(app, user.auth)
      // queued and generating with no job behind them: the page shows them as the stream reports them
      if (status !== 'draft' && status !== 'ready') await app.db.update(reports).set({ status }).where(eq(reports.id, id))
      await openReport(page, id)
      await page.locator('#report-status', { hasText: LABELS[status] }).waitFor(WAIT)
      await page.locator('.report-meta').waitFor(WAIT)
      const text = (await page.locator('.report-head').innerText()).replace(/\s+/g, ' ').trim()
      t.notMatch(text, /\bnull\b|\bundefined\b/, `${status}: nothing unset is printed`)
      t.match(text, new RegExp(`^← All reports John Doe ${LABELS[status]} (Created|Generated) .+ · Delete${status === 'ready' ? ' .*(JSON|CSV)' : ''}`), `${status}: ${text}`)
      t.equal(await page.title(), 'John Doe: report · Profile Interest Reports', `${status}: the title names the person`)
    }
  })

  await t.test('while the report loads, the page says so', async (t) => {
    const user = await signedInUser(app)
    const id = await createReport(app, user.auth, [{ source: 'ig', username: 'jdoe' }])
    const page = await signedInPage(t, user)
    // the report's answer is held back (then passed on unchanged) so the loading state can be seen
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(`**/api/v1/report/${id}`, async (route) => { await held; await route.continue() })
    await page.goto(`${PUBLIC_ORIGIN}/#/report/${id}`)
    await page.locator('.loading-report').waitFor(WAIT)
    t.equal(await page.getAttribute('.report-body', 'aria-busy'), 'true')
    release()
    await page.locator('#report-draft').waitFor(WAIT)
    t.equal(await page.getAttribute('.report-body', 'aria-busy'), 'false')
    t.equal(await page.locator('.loading-report').count(), 0, 'the loading line is gone')
    t.ok(await page.locator('#generate-report').isVisible(), 'a draft offers to generate')
  })

  await t.test('no friends and no diffs: each section says so', async (t) => {
    const { user, id } = await userWithReport([{ source: 'tt', username: 'lonely' }])
    const page = await signedInPage(t, user)
    await openReport(page, id)
    await page.locator('#section-friends-tt').waitFor(WAIT)
    t.match(await page.textContent('#friends-tt'), /No friends with common interests or red flags on TikTok/)
    t.ok(await page.locator('#section-friends-tt .pager').isHidden())
    t.match(await page.textContent('#diffs-tt'), /No change in interests over the months on record/)
    t.equal(await page.locator('#chart-diffs-tt').count(), 0, 'no chart without data')
    t.ok(await page.locator('#diffs-more-tt').isHidden())
    await page.locator('#chart-categories-tt').waitFor(WAIT)
    t.equal(await page.locator('#section-networks').count(), 0, 'one network: no side-by-side chart')
    const report = await api(user.auth, `/report/${id}`)
    t.notOk(report.items[0].interestDiffs, 'the API has no diffs for it')
    t.equal(report.items[0].friends.total, 0, 'nor friends')
  })

  await t.test('export: JSON and CSV downloads', async (t) => {
    const { user, id } = await userWithReport([{ source: 'ig', username: 'jdoe' }])
    const page = await signedInPage(t, user)
    await openReport(page, id)
    const probe = await app.inject({ url: `/api/v1/report/${id}/export.csv`, headers: user.auth })
    if (probe.statusCode === 404) {
      // the export route is not on this branch: the buttons say so rather than fail silently
      await page.click('#export-csv')
      await page.locator('.report-head .form-error', { hasText: /cannot be exported/ }).waitFor(WAIT)
      await t.test('the downloads', { skip: 'GET /report/{id}/export is not served here: the download itself is not tested' }, async () => {})
      return
    }
    for (const [button, query, name] of [['csv', 'export.csv', `report-${id}.csv`], ['json', 'export', `report-${id}.json`], ['csv-friends', 'export.csv?part=friends', `report-${id}-friends.csv`]]) {
      const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.click(`#export-${button}`)])
      const saved = readFileSync((await download.path())!, 'utf8')
      const direct = await app.inject({ url: `/api/v1/report/${id}/${query}`, headers: user.auth })
      t.equal(direct.statusCode, 200)
      t.equal(saved, direct.body, `the ${query} file is the API's answer, byte for byte`)
      t.equal(download.suggestedFilename(), name, 'named as the server says')
    }
    // the CSV's numbers are the report's: every interest share of the tree, unrounded
    const csv = readFileSync((await (await Promise.all([page.waitForEvent('download', WAIT), page.click('#export-csv')]))[0].path())!, 'utf8')
    const tree = (await api(user.auth, `/report/${id}/interests?source=ig`)).items as Array<{ interests: Array<{ name: string, share: number }> }>
    for (const i of tree.flatMap((c) => c.interests)) t.ok(csv.includes(`${i.name}`) && csv.includes(String(i.share)), `${i.name} ${i.share} in the CSV`)
  })

  await t.test('accessibility, screenshots in light and dark, print to PDF', async (t) => {
    const { user, id } = await userWithReport([{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }])
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
        const page = await signedInPage(t, user, { viewport, colorScheme, phone: size === 'phone' })
        await openReport(page, id)
        await page.locator('#chart-categories-ig').waitFor(WAIT)
        await page.locator('#chart-diffs-ig').waitFor(WAIT)
        await page.locator('#friends-ig .person').first().locator('.friend-open').click()
        await page.locator('#chart-diffs-ig .chart-col').first().click()
        t.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, `${size} ${colorScheme}: nothing wider than the screen`)
        await screenshot(page, `report-charts-${size}-${colorScheme}`)
        if (size === 'desktop') t.same(await axe(page), [], `axe: no serious or critical violation (${colorScheme})`)
        if (colorScheme === 'dark' && size === 'desktop') {
          const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
          t.not(bg, 'rgb(245, 246, 248)', 'the page is dark in dark mode')
        }
      }
    }

    const page = await signedInPage(t, user)
    await openReport(page, id)
    await page.locator('#chart-diffs-ig').waitFor(WAIT)
    await page.locator('#chart-categories-fb').waitFor({ state: 'attached', ...WAIT })
    await page.emulateMedia({ media: 'print' })
    t.ok(await page.locator('.topbar').isHidden(), 'print: no navigation')
    t.ok(await page.locator('#export-csv').isHidden(), 'print: no buttons')
    t.ok(await page.locator('.source-tabs').isHidden(), 'print: no tabs')
    t.ok(await page.locator('#item-panel-fb').isVisible(), 'print: every network, not only the open tab')
    t.ok(await page.locator('#chart-categories-ig').isVisible(), 'print: the charts')
    t.ok(await page.locator('#chart-categories-fb').isVisible())
    await page.screenshot({ path: `${ARTIFACTS}report-print.png`, fullPage: true })
    const pdf = await page.pdf({ path: `${ARTIFACTS}report.pdf`, format: 'A4', printBackground: true })
    t.equal(pdf.subarray(0, 5).toString(), '%PDF-', 'a PDF')
    t.ok(pdf.length > 10_000, `of ${pdf.length} bytes`)
  })

  t.same(problems, [], 'no script error and no CSP violation')
})
