// The staff console in headless Chromium: an admin signs in with the password and an authenticator
// code, opens Admin, finds an account by part of its address, disables it with a reason through the
// confirm dialog (which names what it does to whom), sees it disabled, finds the admin.disable line
// naming the reason in the audit log, and enables it again after the fresh proof the dialog asks for.
// A support member is not shown the admin-only actions nor any on a staff account (and is offered
// the admin:read scope for a key); a staff member without a second factor is sent to the account page to set one up; a plain
// user has neither an Admin link nor the admin:read scope.
import type { Page } from 'playwright-core'
import t, { type Test } from '../tap.ts'
import { registeredUser, signedInUser } from '../helper.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import type { MfaApp } from '../mfa/support.ts'
import { staffMember, userIdOf, type StaffMember } from '../staff/support.ts'
import { issueKey } from '../api-keys/support.ts'
import { inspectView, PUBLIC_ORIGIN, signInThroughForm, skip, startDashboard, submitSignIn, WAIT } from './browser.ts'

t.test('the staff console', { skip }, async (t) => {
  // the app's clock moves on by whole TOTP steps: each code is accepted once
  let shift = 0
  const now = () => Date.now() + shift
  const d = await startDashboard(t, {}, { now })
  const m = { app: d.app, now, nextStep: () => { shift += 30_000 }, hold: () => {}, release: () => {} } as MfaApp

  /** a fresh browser profile signed in as this staff member: the password, then the app's code */
  const staffPage = async (t: Test, name: string, staff: StaffMember): Promise<Page> => {
    const { context, page } = await d.newPage(name)
    t.teardown(() => context.close())
    await page.goto(PUBLIC_ORIGIN)
    await submitSignIn(page, staff)
    await page.locator('#second-factor-form').waitFor(WAIT)
    m.nextStep()
    await page.fill('#second-factor-code', codeAt(staff.totp.secret, now()))
    await page.click('#second-factor-form button[type=submit]')
    await page.locator('#sign-out').waitFor(WAIT)
    return page
  }

  // the account staff act on: signed in once (a session) with an API key
  const mark = `Alice-${process.pid}-${Date.now().toString(36)}`
  const target = await signedInUser(d.app, { email: `${mark.toLowerCase()}@example.com` })
  await issueKey(d.app, target.auth)
  const targetId = await userIdOf(m, target.email)

  await t.test('an admin finds an account, disables it with a reason and sees it in the audit log', async (t) => {
    const admin = await staffMember(m, 'admin')
    const page = await staffPage(t, 'admin', admin)
    await page.locator('#admin-link').waitFor(WAIT)
    t.equal(await page.textContent('#admin-link'), 'Admin', 'staff have an Admin link in the header')
    await page.click('#admin-link')
    await page.locator('#admin-overview .admin-figures').first().waitFor(WAIT)
    t.equal(await page.getAttribute('#admin-link', 'aria-current'), 'page')
    t.equal(await page.getAttribute('#admin-tab-overview', 'aria-current'), 'page')
    t.match(await page.title(), /^Overview · Staff/)
    t.ok(await page.locator('#admin-overview [data-figure]').count() > 0, 'the overview shows its figures')
    await inspectView(t, page, 'admin-overview')

    // part of the address, in another case
    await page.click('#admin-tab-users')
    await page.locator('#admin-search-q').waitFor(WAIT)
    await page.fill('#admin-search-q', mark.slice(2).toUpperCase())
    await page.press('#admin-search-q', 'Enter')
    const row = page.locator(`#admin-user-list .admin-row[data-id="${targetId}"]`)
    await row.waitFor(WAIT)
    t.equal(await page.locator('#admin-user-list .admin-row').count(), 1, 'one account matches')
    t.equal(await row.locator('.admin-email').textContent(), target.email)
    t.match(page.url(), /#\/admin\/users\?q=/, 'the search is in the address')
    await inspectView(t, page, 'admin-users')

    await row.click()
    await page.locator('#admin-user-email').waitFor(WAIT)
    t.equal(await page.textContent('#admin-user-email'), target.email, 'the account\'s page')
    t.equal(await page.textContent('#admin-user-state'), 'Active')
    t.match(await page.getAttribute('#admin-user-back', 'href'), /^#\/admin\/users\?q=/, 'its way back is to the search')
    await page.waitForFunction(() => document.querySelectorAll('#admin-user-sessions .program-item').length === 1, null, WAIT)
    t.equal(await page.locator('#admin-user-keys .program-item').count(), 1, 'its API key')
    for (const action of ['disable', 'credits', 'sessions', 'recovery', 'role']) {
      t.ok(await page.locator(`#admin-${action}`).isVisible(), `an admin is offered ${action}`)
    }
    t.equal(await page.locator('#admin-enable').count(), 0, 'enable only for a disabled account')
    t.equal(await page.locator('#admin-factors').count(), 0, 'no second factor to remove')
    await inspectView(t, page, 'admin-user')

    await page.click('#admin-disable')
    const dialog = page.locator('#admin-action-dialog')
    await dialog.waitFor(WAIT)
    const effect = await page.textContent('#admin-action-effect')
    t.match(effect, `Disable ${target.email}: ends its session, revokes its 1 API key and holds its mails`, 'the dialog names what it does to whom')
    await inspectView(t, page, 'admin-disable-dialog')
    await page.click('#admin-action-confirm')
    t.equal(await page.textContent('#admin-action-reason-error'), 'Give the reason', 'not without a reason')
    await page.fill('#admin-action-reason', 'abuse report 123')
    await page.click('#admin-action-confirm')
    await page.locator('#admin-action-done').waitFor(WAIT)
    t.ok(await dialog.isHidden(), 'the dialog is closed')
    await page.locator('#admin-user-state[data-state=disabled]').waitFor(WAIT)
    t.equal(await page.textContent('#admin-user-state'), 'Disabled', 'the account shows disabled')
    const [row0] = await d.app.database.query<{ disabled: boolean }>('select disabled_at is not null as disabled from users where id = $1', [targetId])
    t.ok(row0.disabled, 'and it is')
    const refused = await d.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: target.email, password: target.password } })
    t.match(refused.json(), { status: 'error', fieldError: { field: 'email', message: 'account disabled' } }, 'its sign-in is refused')

    await page.click('#admin-tab-audit')
    await page.locator('#admin-audit-kind').waitFor(WAIT)
    await page.fill('#admin-audit-kind', 'admin.disable')
    await page.fill('#admin-audit-userId', targetId)
    await page.press('#admin-audit-kind', 'Enter')
    const line = page.locator('#admin-audit-list .admin-event[data-kind="admin.disable"]')
    await line.first().waitFor(WAIT)
    t.equal(await line.count(), 1, 'one admin.disable line for the account')
    t.match(await line.textContent(), /abuse report 123/, 'naming the reason')
    t.match(await line.locator('a[title]').first().getAttribute('title'), targetId, 'and the account')
    await inspectView(t, page, 'admin-audit')

    // enabling it again after the session's proof has aged: the dialog asks for the password, then goes on
    await d.app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = $1", [admin.id])
    await page.goto(`${PUBLIC_ORIGIN}/#/admin/users/${targetId}`)
    await page.locator('#admin-enable').waitFor(WAIT)
    await page.click('#admin-enable')
    await page.fill('#admin-action-reason', 'the owner proved the report wrong')
    await page.click('#admin-action-confirm')
    await page.locator('#admin-action-proof-password').waitFor(WAIT)
    await page.fill('#admin-action-proof-password', admin.password)
    await page.press('#admin-action-proof-password', 'Enter')
    await page.locator('#admin-action-done').waitFor(WAIT)
    await page.locator('#admin-user-state[data-state=active]').waitFor(WAIT)
    t.equal(await page.textContent('#admin-user-state'), 'Active', 'enabled again after the fresh proof')
  })

  await t.test('a support member is not shown the admin-only actions', async (t) => {
    const support = await staffMember(m, 'support')
    const page = await staffPage(t, 'support', support)
    // the account page offers staff the admin:read scope for a key of their own
    await page.click('#account-link')
    await page.locator('#api-key-scope-admin-read').waitFor(WAIT)
    t.pass('the API key form offers staff admin:read')
    await page.click('#admin-link')
    await page.evaluate((id) => { location.hash = `#/admin/users/${id}` }, targetId)
    await page.locator('#admin-user-actions').waitFor(WAIT)
    for (const action of ['disable', 'sessions', 'recovery']) t.ok(await page.locator(`#admin-${action}`).isVisible(), `support is offered ${action}`)
    for (const action of ['credits', 'factors', 'role']) t.equal(await page.locator(`#admin-${action}`).count(), 0, `support is not offered ${action}`)
    // support acts on customers' accounts only: a staff account's page offers nothing
    await page.evaluate((id) => { location.hash = `#/admin/users/${id}` }, support.id)
    await page.locator('#admin-user-staff-only').waitFor(WAIT)
    t.equal(await page.locator('#admin-user-actions button').count(), 0, 'no action on a staff account')
  })

  await t.test('a staff member without a second factor is told to set one up', async (t) => {
    const staff = await registeredUser(d.app)
    await d.app.database.query("update users set role = 'admin' where email = $1", [staff.email])
    const { context, page } = await d.newPage('admin-no-factor')
    t.teardown(() => context.close())
    await signInThroughForm(page, staff)
    await page.click('#admin-link')
    await page.locator('#admin-second-factor').waitFor(WAIT)
    t.match(await page.textContent('#admin-second-factor'), /second factor/)
    await inspectView(t, page, 'admin-second-factor')
    await page.click('#admin-second-factor-link')
    await page.locator('#account-overview').waitFor(WAIT)
    t.pass('its link opens the account page')
  })

  await t.test('a plain user has no Admin link', async (t) => {
    const { page } = await d.signedInPage(t, 'plain')
    await page.locator('#account-link').waitFor(WAIT)
    t.equal(await page.locator('#admin-link').count(), 0, 'no Admin link')
    await page.click('#account-link')
    await page.locator('#api-key-form').waitFor(WAIT)
    t.equal(await page.locator('#api-key-scope-admin-read').count(), 0, 'nor the admin:read scope for a key')
    await page.evaluate(() => { location.hash = '#/admin' })
    await page.locator('#admin-denied').waitFor(WAIT)
    t.pass('the address alone shows no console')
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
