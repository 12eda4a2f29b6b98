// The account page in headless Chromium: the signed-in sessions (this browser marked) and "sign out
// everywhere else", which the other browser feels on its next request, and which a stale session
// may do after proving its owner again in the card; changing the password (the
// policy and a wrong current password under their fields); deleting the account. Each test has its
// own account and browser profiles.
import t from '../tap.ts'
import { GOOD_PASSWORD, registeredUser } from '../helper.ts'
import { inspectView, PHONE, signInThroughForm, skip, startDashboard, WAIT } from './browser.ts'

const NEW_PASSWORD = 'another good passphrase 77'

t.test('the account page', { skip }, async (t) => {
  const d = await startDashboard(t)

  await t.test('sessions: this browser marked, sign out everywhere else', async (t) => {
    const user = await registeredUser(d.app)
    const there = await d.signedInPage(t, 'sessions-there', { user })
    const here = await d.signedInPage(t, 'sessions-here', { user })
    t.ok(await here.page.locator('#account-link').isVisible(), 'the account page has a place in the header')
    t.equal(await here.page.textContent('#account-link'), 'Account')
    await here.page.click('#account-link')
    await here.page.locator('#account-overview').waitFor(WAIT)
    t.equal(await here.page.title(), 'Your account · Profile Interest Reports', 'the view names itself in the title')
    t.equal(await here.page.getAttribute('#account-link', 'aria-current'), 'page', 'the header says where the person is')
    const rows = here.page.locator('#session-list .session')
    await here.page.waitForFunction(() => document.querySelectorAll('#session-list .session').length === 2, null, WAIT)
    t.equal(await rows.count(), 2, 'two browsers signed in')
    t.equal(await here.page.locator('#session-list .session[data-current="true"]').count(), 1, 'this browser is marked')
    t.match(await here.page.textContent('#session-list'), /This browser/)
    t.equal(await here.page.textContent('#session-list .session[data-current="true"] .session-device'), 'Chrome on Linux', 'the browser that signed in, as a person reads it')
    t.match(await here.page.textContent('#session-list .session[data-current="false"] .session-device'), /^Chrome on Linux, last used (just now|\d+ minutes? ago)$/, 'the other one, and when it was last used')
    t.match(await here.page.getAttribute('#session-list .session-agent', 'title'), /HeadlessChrome/, 'the raw User-Agent in the tooltip')
    await inspectView(t, here.page, 'account-sessions')

    await here.page.click('#sign-out-others')
    await here.page.waitForFunction(() => document.querySelectorAll('#session-list .session').length === 1, null, WAIT)
    t.equal(await here.page.getAttribute('#session-list .session', 'data-current'), 'true', 'only this browser is left')
    t.ok(await here.page.locator('#sign-out-others').isHidden(), 'nothing else to sign out')

    // the other browser is signed out: a reload finds no session
    await there.page.reload()
    await there.page.locator('#signin-form').waitFor(WAIT)
    t.equal(await there.page.locator('#sign-out').count(), 0)
  })

  await t.test('signing the other sessions out with a stale proof: the password first, then it goes on', async (t) => {
    const user = await registeredUser(d.app)
    await d.signedInPage(t, 'stale-there', { user })
    const { page } = await d.signedInPage(t, 'stale-here', { user })
    await page.click('#account-link')
    await page.waitForFunction(() => document.querySelectorAll('#session-list .session').length === 2, null, WAIT)
    // the sessions last proved their owner an hour ago, past STEP_UP_MAX_AGE_S
    await d.app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = (select id from users where email = $1)", [user.email])
    await page.click('#sign-out-others')
    await page.locator('#sessions-proof-password').waitFor(WAIT)
    await page.fill('#sessions-proof-password', GOOD_PASSWORD)
    await page.press('#sessions-proof-password', 'Enter')
    await page.waitForFunction(() => document.querySelectorAll('#session-list .session').length === 1, null, WAIT)
    t.equal(await page.locator('#sessions-proof').count(), 0, 'the prompt is gone')
    t.equal(await page.textContent('#account-sessions .form-error'), '', 'and no error')
  })

  await t.test('a server without Google sign-in or billing: their cards are not shown', async (t) => {
    const user = await registeredUser(d.app)
    await d.app.database.query('update users set report_credits = 0 where email = $1', [user.email])
    const { page } = await d.signedInPage(t, 'unconfigured', { user })
    const card = page.locator('#no-credit')
    await card.waitFor(WAIT)
    t.equal(await card.locator('#no-credit-subscribe').count(), 0, 'at zero credits: no subscribe where billing is not configured')
    t.notMatch(await card.textContent(), /Subscribe/, 'nor a promise of one')
    t.ok(await card.locator('#no-credit-promo-form').isVisible(), 'the promo field')
    t.match(await card.locator('#no-credit-dev-promo').textContent(), /npm run promo -- create WELCOME5 --max-uses 10 --credits 5/, 'and the command that makes a code')
    await inspectView(t, page, 'home-no-credit-no-billing')
    await page.click('#account-link')
    await page.locator('#account-sessions').waitFor(WAIT)
    t.equal(await page.locator('#account-google').count(), 0, 'no Google sign-in card')
    t.equal(await page.locator('#subscription-status').count(), 0, 'no subscription row')
    t.equal(await page.locator('#subscribe').count(), 0, 'no subscribe button')
    t.ok(await page.locator('#account-promo-form').isVisible(), 'promo codes work without billing')
  })

  await t.test('the phone width keeps the account link in the header', async (t) => {
    const { page } = await d.signedInPage(t, 'account-phone', { viewport: PHONE })
    t.ok(await page.locator('#account-link').isVisible(), 'the link')
    t.ok(await page.locator('.account-email').isHidden(), 'the address gives it room')
  })

  await t.test('a page in use asks for a fresh token now and then, so the session\'s last use follows', async (t) => {
    const { context, page } = await d.newPage('roll-on-use')
    t.teardown(() => context.close())
    await page.clock.install()
    await signInThroughForm(page, await registeredUser(d.app))
    const refreshes: string[] = []
    page.on('request', (r) => { if (r.url().endsWith('/api/v1/auth/token/refresh')) refreshes.push(r.url()) })
    await page.click('#account-link')
    await page.locator('#session-list .session').waitFor(WAIT)
    t.same(refreshes, [], 'a page just signed in uses the token it has')
    await page.clock.fastForward('03:00')
    const rolled = page.waitForRequest((r) => r.url().endsWith('/api/v1/auth/token/refresh'), WAIT)
    await page.click('.brand')
    await rolled
    await page.locator('#reports').waitFor(WAIT)
    t.equal(refreshes.length, 1, 'minutes later, the next request brings one refresh along')
    t.ok(await page.locator('#sign-out').isVisible(), 'still signed in')
  })

  await t.test('change the password: the fields say what is wrong, then it is changed', async (t) => {
    const { user: { email }, page } = await d.signedInPage(t, 'password')
    await page.click('#account-link')
    await page.locator('#password-form').waitFor(WAIT)

    await page.fill('#password-currentPassword', 'not my password')
    await page.fill('#password-newPassword', NEW_PASSWORD)
    await page.fill('#password-repeat', NEW_PASSWORD)
    await page.click('#password-form button[type=submit]')
    await page.locator('#password-currentPassword-error', { hasText: 'current password is wrong' }).waitFor(WAIT)

    await page.fill('#password-currentPassword', GOOD_PASSWORD)
    await page.fill('#password-newPassword', 'short')
    await page.fill('#password-repeat', 'short')
    await page.click('#password-form button[type=submit]')
    await page.waitForFunction(() => document.querySelector('#password-newPassword-error')?.textContent !== '', null, WAIT)
    t.equal(await page.getAttribute('#password-newPassword', 'aria-invalid'), 'true', 'the policy under the new password')
    await inspectView(t, page, 'account-password-error')

    await page.fill('#password-newPassword', NEW_PASSWORD)
    await page.fill('#password-repeat', NEW_PASSWORD)
    await page.click('#password-form button[type=submit]')
    await page.locator('#password-form .form-ok', { hasText: 'password is changed' }).waitFor(WAIT)
    const signin = await d.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: NEW_PASSWORD } })
    t.equal(signin.json().status, 'success', 'the new password signs in')
  })

  await t.test('delete the account', async (t) => {
    const { user: { email }, page } = await d.signedInPage(t, 'delete')
    page.on('dialog', (dialog) => { dialog.accept().catch(() => {}) })
    await page.click('#account-link')
    await page.locator('#delete-form').waitFor(WAIT)
    t.equal(await page.evaluate(() => [...document.querySelectorAll('main section.card')].at(-1)?.id), 'account-delete', 'the last card of the page')
    await page.fill('#delete-password', 'not my password')
    await page.click('#delete-form button[type=submit]')
    await page.locator('#delete-password-error', { hasText: 'password is wrong' }).waitFor(WAIT)
    await page.fill('#delete-password', GOOD_PASSWORD)
    await page.click('#delete-form button[type=submit]')
    await page.locator('#signin-form').waitFor(WAIT)
    t.match(await page.textContent('main'), /Your account is deleted/)
    const signin = await d.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: GOOD_PASSWORD } })
    t.equal(signin.json().status, 'error', 'the account is gone')
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
