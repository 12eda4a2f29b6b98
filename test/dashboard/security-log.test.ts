// The account page's security log in headless Chromium: the account's events newest first, ten at a
// time with "More", the device as the sessions card names it, "by staff" on what staff did; and the
// new-device notice's checkbox, saved through PUT /auth/notices, asking for the password first when
// the session's proof is stale.
import t from '../tap.ts'
import { GOOD_PASSWORD, registeredUser } from '../helper.ts'
import { AUDIT } from '../../src/services/accounts/audit.ts'
import { inspectView, skip, startDashboard, WAIT } from './browser.ts'

t.test('the security log card', { skip }, async (t) => {
  const d = await startDashboard(t, { RATE_LIMIT_SIGNIN_IP: '1000', RATE_LIMIT_SIGNIN_EMAIL: '100' })
  const user = await registeredUser(d.app)
  // eleven sign-ins by a program (no browser named), then staff act on the account
  for (let i = 0; i < 11; i++) {
    const res = await d.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password } })
    t.equal(res.json().status, 'success')
  }
  const [{ id }] = await d.app.database.query<{ id: string }>('select id from users where email = $1', [user.email])
  const staff = await registeredUser(d.app)
  const [{ id: actorId }] = await d.app.database.query<{ id: string }>('select id from users where email = $1', [staff.email])
  await d.app.database.db.transaction(async (tx) => {
    await d.app.services.audit.recordStaffIn(tx, AUDIT.adminCredits, { userId: id, actorId, meta: { ip: '192.0.2.99' }, details: { reason: 'goodwill' } })
  })
  const { page } = await d.signedInPage(t, 'security-log', { user })
  await page.click('#account-link')
  const events = page.locator('#security-log .security-event')
  await page.waitForFunction(() => document.querySelectorAll('#security-log .security-event').length === 10, null, WAIT)

  // newest first: the browser's sign-in, then staff's credits (sign-up, 12 sign-ins and the staff action: 14)
  t.equal(await page.textContent('#security-log-count'), '10 of 14')
  t.equal(await events.nth(0).getAttribute('data-kind'), 'signin.success')
  t.match(await events.nth(0).textContent(), /^Signed inChrome on Linux from 127\.0\.0\.1 · /, 'the device as the sessions card names it, and the address')
  t.equal(await events.nth(1).getAttribute('data-by'), 'staff')
  t.match(await events.nth(1).textContent(), /^Report credits changedby staff/, 'what staff did, said so')
  t.notMatch(await events.nth(1).textContent(), /192\.0\.2\.99/, "never the staff member's address")
  t.match(await events.nth(2).textContent(), /^Signed inUnknown device from 127\.0\.0\.1/, 'a program names no browser')
  t.ok(await page.locator('#security-log-more').isVisible(), 'more to come')
  await inspectView(t, page, 'account-security-log')

  await page.click('#security-log-more')
  await page.waitForFunction(() => document.querySelectorAll('#security-log .security-event').length === 14, null, WAIT)
  t.equal(await page.textContent('#security-log-count'), '14 of 14')
  t.equal(await events.nth(13).getAttribute('data-kind'), 'signup', 'the oldest last')
  t.ok(await page.locator('#security-log-more').isHidden(), 'the last page: no More')

  // the new-device notice: on by default, turned off and kept
  const wanted = async () => (await d.app.database.query<{ on: boolean }>('select new_device_notices as on from users where id = $1', [id]))[0].on
  const box = page.locator('#new-device-notices')
  await page.waitForFunction(() => !(document.querySelector('#new-device-notices') as HTMLInputElement).disabled, null, WAIT)
  t.ok(await box.isChecked(), 'on by default')
  await box.uncheck()
  await page.waitForFunction(() => !(document.querySelector('#new-device-notices') as HTMLInputElement).disabled, null, WAIT)
  t.equal(await wanted(), false, 'turned off')
  await page.reload()
  await page.waitForFunction(() => {
    const el = document.querySelector('#new-device-notices') as HTMLInputElement | null
    return el !== null && !el.disabled
  }, null, WAIT)
  t.notOk(await box.isChecked(), 'still off after a reload')

  // an hour after the sign-in, turning it on asks for the password first
  await d.app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = $1", [id])
  await box.check()
  await page.locator('#notices-proof-password').waitFor(WAIT)
  await page.fill('#notices-proof-password', GOOD_PASSWORD)
  await page.press('#notices-proof-password', 'Enter')
  await page.waitForFunction(() => {
    const el = document.querySelector('#new-device-notices') as HTMLInputElement
    return el.checked && !el.disabled
  }, null, WAIT)
  t.equal(await wanted(), true, 'on again, once the password proved the owner')
  t.equal(await page.textContent('#account-security-log .form-error'), '', 'and no error')
  t.same(d.problems, [], 'no script error or CSP violation')
})
