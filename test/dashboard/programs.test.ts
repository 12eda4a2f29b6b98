// The account page's cards for programs in headless Chromium: an API key made through the form (the
// key shown once with Copy, then only its prefix listed; it works, then is revoked); a webhook that
// points at a receiver the test runs (its secret shown once, a test event delivered, signed, and seen
// in the delivery log; a failed delivery retried; "More" pages the log; the secret rotated; a log
// opened while the list is drawn again stays open; the endpoint deleted; the forms offer every scope
// and event the API has); and the fresh-proof prompt of a session whose proof is stale (the password, or
// Google for an account that has only Google), after which the refused call goes through.
import { createHmac } from 'node:crypto'
import type { Page } from 'playwright-core'
import t from '../tap.ts'
import { GOOD_PASSWORD, signedInUser } from '../helper.ts'
import { startGoogleCerts, TEST_CLIENT_ID } from '../peers/google-certs.ts'
import { startReceiver, type Received } from '../webhooks/receiver.ts'
import { inspectView, PUBLIC_ORIGIN, skip, startDashboard, WAIT } from './browser.ts'
import { API_KEY_SCOPES } from '../../schemas/api-keys.ts'
import { WEBHOOK_EVENT_TYPES } from '../../schemas/webhooks.ts'

/** a Standard Webhooks signature check, as a receiver makes it (docs/integration.md) */
function signedWith (secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64')
  return String(r.headers['webhook-signature']).split(' ').includes(`v1,${expected}`)
}

t.test('programs on the account page', { skip }, async (t) => {
  const google = await startGoogleCerts()
  t.teardown(() => google.close())
  // WORKERS=1: the delivery workers run beside the report workers; one attempt per delivery
  const d = await startDashboard(t, {
    WORKERS: '1',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0',
    GOOGLE_CLIENT_IDS: TEST_CLIENT_ID,
    GOOGLE_CERTS_URL: google.url
  })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  /** the account's sessions last proved their owner an hour ago, past STEP_UP_MAX_AGE_S (600) */
  const stale = (email: string) => d.app.database.query(
    "update sessions set proved_at = now() - interval '1 hour' where user_id = (select id from users where email = $1)", [email])
  const openAccount = async (page: Page) => {
    await page.click('#account-link')
    await page.locator('#api-key-list:not([aria-busy])').waitFor(WAIT)
    await page.locator('#webhook-list:not([aria-busy])').waitFor(WAIT)
  }

  await t.test('an API key: shown once with Copy, then listed by its prefix; it works until revoked', async (t) => {
    const { page } = await d.signedInPage(t, 'api-keys', { context: { permissions: ['clipboard-read', 'clipboard-write'] } })
    page.on('dialog', (dialog) => { dialog.accept().catch(() => {}) })
    await openAccount(page)
    t.match(await page.textContent('#api-key-list'), /No key yet/)
    t.same(await page.locator('#api-key-form input[name=scopes]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)),
      API_KEY_SCOPES.filter((s) => s !== 'admin:read'), 'the form offers every scope the API has but the staff one (test/dashboard/admin-console.test.ts)')

    await page.fill('#api-key-name', 'nightly batch')
    await page.check('#api-key-scope-reports-read')
    await page.check('#api-key-scope-webhooks')
    await page.fill('#api-key-expiresInDays', '30')
    await page.click('#api-key-form button[type=submit]')
    const value = page.locator('#api-key-secret-value')
    await value.waitFor(WAIT)
    const key = await value.inputValue()
    const [, prefix, secretPart] = /^pir_([A-Za-z0-9]+)_(\S+)$/.exec(key) ?? []
    t.ok(prefix && secretPart, 'the key, whole')
    t.equal(await page.getAttribute('#api-key-secret', 'aria-live'), 'polite', 'announced as it appears')
    t.ok(await value.evaluate((el) => (el as HTMLInputElement).readOnly), 'read-only')
    t.equal(await page.evaluate(() => document.activeElement?.id), 'api-key-secret-value', 'the focus is on it')
    t.match(await page.textContent('#api-key-secret'), /you will not see it again/)

    await page.click('#api-key-secret-copy')
    await page.locator('#api-key-secret-status', { hasText: 'Copied' }).waitFor(WAIT)
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'Copy puts the key on the clipboard')
    // without a clipboard the key is selected for the person to copy
    await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')) })
    await page.click('#api-key-secret-copy')
    await page.locator('#api-key-secret-status', { hasText: 'Ctrl+C' }).waitFor(WAIT)
    t.equal(await value.evaluate((el) => { const i = el as HTMLInputElement; return i.value.slice(i.selectionStart ?? 0, i.selectionEnd ?? 0) }), key, 'the whole key is selected')

    const item = page.locator('#api-key-list .program-item')
    await item.waitFor(WAIT)
    const listed = await item.textContent() ?? ''
    t.match(listed, 'nightly batch')
    t.match(listed, `pir_${prefix}_…`, 'the prefix')
    t.match(listed, /reports:read.*webhooks/)
    t.match(listed, /never used/)
    t.match(listed, /expires /)
    t.notMatch(listed, secretPart, 'never the secret')
    await inspectView(t, page, 'account-api-key-new')

    t.equal((await d.app.inject({ url: '/api/v1/webhooks', headers: bearer(key) })).statusCode, 200, 'the key works within its scopes')
    t.equal((await d.app.inject({ url: '/api/v1/profiles?q=alex', headers: bearer(key) })).statusCode, 403, 'and not outside them')

    await page.click('#api-key-secret-done')
    t.equal(await page.locator('#api-key-secret-value').count(), 0, 'dismissed')
    await page.reload()
    await page.locator('#api-key-list .program-item').waitFor(WAIT)
    t.notOk((await page.content()).includes(secretPart), 'a reload shows the key nowhere')
    t.match(await page.textContent('#api-key-list'), `pir_${prefix}_…`)

    await page.click('#api-key-list .program-item button:has-text("Revoke")')
    await page.locator('#api-key-list', { hasText: 'No key yet' }).waitFor(WAIT)
    t.equal((await d.app.inject({ url: '/api/v1/webhooks', headers: bearer(key) })).statusCode, 401, 'the revoked key is refused')
  })

  await t.test('a webhook: secret once, a test delivered and logged, a failure retried, paging, rotate, delete', async (t) => {
    // the second request is refused once: its delivery fails (one attempt) and is retried from the log
    const receiver = await startReceiver(t, (n) => n === 1 ? 500 : 204)
    const { user, page } = await d.signedInPage(t, 'webhooks')
    page.on('dialog', (dialog) => { dialog.accept().catch(() => {}) })
    await openAccount(page)
    t.match(await page.textContent('#webhook-list'), /No webhook yet/)
    t.same(await page.locator('#webhook-form input[name=events]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)),
      WEBHOOK_EVENT_TYPES, 'the form offers every event the API sends')

    // the form says what is missing before asking the server
    await page.click('#webhook-form button[type=submit]')
    await page.locator('#webhook-url-error', { hasText: 'web address' }).waitFor(WAIT)
    const url = `${receiver.url}/pir`
    await page.fill('#webhook-url', url)
    await page.click('#webhook-form button[type=submit]')
    await page.locator('#webhook-events-error', { hasText: 'at least one event' }).waitFor(WAIT)
    await page.check('#webhook-event-report-ready')
    await page.check('#webhook-event-webhook-test')
    await page.click('#webhook-form button[type=submit]')
    const value = page.locator('#webhook-secret-value')
    await value.waitFor(WAIT)
    const first = await value.inputValue()
    t.match(first, /^whsec_[A-Za-z0-9+/]+=*$/, 'the signing secret, shown once')
    t.match(await page.textContent('#webhook-secret'), /you will not see it again/)
    t.ok(await page.locator('#webhook-secret-copy').isVisible(), 'with Copy')
    const item = page.locator('#webhook-list .webhook')
    await item.waitFor(WAIT)
    t.match(await item.textContent(), url)
    t.match(await item.textContent(), /report\.ready.*webhook\.test/)
    t.notOk((await item.textContent())?.includes(first), 'the list never shows the secret')

    await item.locator('.send-test').click()
    const [test] = await receiver.waitFor(1)
    t.equal(JSON.parse(test.body).type, 'webhook.test')
    t.ok(signedWith(first, test), 'signed with the secret the page showed')
    // the log opens and follows the delivery until it is delivered
    t.equal(await item.locator('.log-toggle').getAttribute('aria-expanded'), 'true')
    const delivered = item.locator('.delivery[data-status="delivered"]')
    await delivered.waitFor(WAIT)
    t.match(await delivered.textContent(), /Delivered.*webhook\.test.*1 attempt.*last answer 204/)
    t.equal(await delivered.locator('button').count(), 0, 'nothing to retry')
    await inspectView(t, page, 'account-webhooks')

    await item.locator('.rotate').click()
    await page.waitForFunction((old) => {
      const v = (document.querySelector('#webhook-secret-value') as HTMLInputElement | null)?.value
      return v && v !== old
    }, first, WAIT)
    const second = await value.inputValue()
    t.match(second, /^whsec_/, 'a new secret, shown once')
    t.match(await page.textContent('#webhook-secret'), /24 hours/)

    await item.locator('.send-test').click()
    const refused = (await receiver.waitFor(2))[1]
    t.ok(signedWith(second, refused) && signedWith(first, refused), 'signed with the new secret and, for a day, the old one')
    const failed = item.locator('.delivery[data-status="failed"]')
    await failed.waitFor(WAIT)
    t.match(await failed.textContent(), /Failed.*1 attempt.*last answer 500/)
    await failed.locator('button', { hasText: 'Retry' }).click()
    const retried = (await receiver.waitFor(3))[2]
    t.equal(retried.headers['webhook-id'], refused.headers['webhook-id'], 'the same delivery, sent again')
    await page.waitForFunction(() => document.querySelectorAll('.webhook .delivery[data-status="delivered"]').length === 2, null, WAIT)

    // more than a page of deliveries: "More" brings the rest
    const api = await signedInUser(d.app, { email: user.email, signUp: false })
    const id = await item.getAttribute('data-id')
    for (let i = 0; i < 10; i++) {
      // an endpoint takes 5 test deliveries a minute: the earlier ones are moved a minute back, in order
      await d.app.database.query("update webhook_deliveries set created_at = created_at - interval '61 seconds' where endpoint_id = $1", [id])
      const res = await d.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: api.auth })
      t.equal(res.statusCode, 202)
    }
    await item.locator('.delivery-log button', { hasText: 'Refresh' }).click()
    await page.waitForFunction(() => document.querySelectorAll('.webhook .delivery').length === 10, null, WAIT)
    const more = item.locator('.delivery-log button', { hasText: 'More' })
    t.ok(await more.isVisible(), 'a page of ten, and More')
    await more.click()
    await page.waitForFunction(() => document.querySelectorAll('.webhook .delivery').length === 12, null, WAIT)
    t.ok(await more.isHidden(), 'all twelve: no more')

    // the list is drawn again once another endpoint is added: a log opened while that drawing is on
    // its way is open in it (the list's answer is held until the click is made)
    const pir = page.locator('#webhook-list .webhook', { hasText: url })
    const toggle = pir.locator('.log-toggle')
    await toggle.click()
    t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'closed')
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    let asked = () => {}
    const listAsked = new Promise<void>((resolve) => { asked = resolve })
    await page.route('**/api/v1/webhooks', async (route) => {
      if (route.request().method() !== 'GET') return route.continue()
      asked()
      await held
      await route.continue()
    })
    await page.fill('#webhook-url', `${receiver.url}/other`)
    await page.check('#webhook-event-report-ready')
    await page.click('#webhook-form button[type=submit]')
    await listAsked
    await toggle.click()
    release()
    await page.locator('#webhook-list .webhook', { hasText: '/other' }).waitFor(WAIT)
    await page.unroute('**/api/v1/webhooks')
    t.equal(await toggle.getAttribute('aria-expanded'), 'true', 'the first click on Deliveries opened the log, and it stays open')
    t.ok(await pir.locator('.delivery-log').isVisible())
    await pir.locator('.delivery').first().waitFor(WAIT)

    await pir.locator('.delete').click()
    await page.locator('#webhook-list .webhook', { hasText: url }).waitFor({ state: 'detached', ...WAIT })
    t.same((await d.app.inject({ url: '/api/v1/webhooks', headers: api.auth })).json().items.map((e: { url: string }) => e.url), [`${receiver.url}/other`], 'deleted')
  })

  await t.test('a stale session: the card asks for the password, then the call goes through', async (t) => {
    const { user, page } = await d.signedInPage(t, 'proof')
    await openAccount(page)
    await stale(user.email)

    await page.fill('#api-key-name', 'after a proof')
    await page.check('#api-key-scope-reports-read')
    await page.click('#api-key-form button[type=submit]')
    await page.locator('#api-key-proof-password').waitFor(WAIT)
    t.equal(await page.evaluate(() => document.activeElement?.id), 'api-key-proof-password', 'the prompt takes the focus')
    t.equal(await page.locator('#api-key-secret-value').count(), 0, 'no key yet')
    await inspectView(t, page, 'account-proof')

    await page.fill('#api-key-proof-password', 'not my password')
    await page.click('#api-key-proof-form button[type=submit]')
    await page.locator('#api-key-proof-password-error', { hasText: 'password is wrong' }).waitFor(WAIT)
    await page.fill('#api-key-proof-password', GOOD_PASSWORD)
    await page.click('#api-key-proof-form button[type=submit]')
    await page.locator('#api-key-secret-value').waitFor(WAIT)
    t.match(await page.locator('#api-key-secret-value').inputValue(), /^pir_/, 'the key is made without asking again')
    t.equal(await page.locator('#api-key-proof').count(), 0, 'the prompt is gone')
    // the list is loaded again after the key is shown: on a busy machine a moment later
    await page.locator('#api-key-list', { hasText: 'after a proof' }).waitFor(WAIT)
    t.match(await page.textContent('#api-key-list'), 'after a proof')

    // stale again: the webhook card asks too, and Escape cancels the prompt and the call
    await stale(user.email)
    await page.fill('#webhook-url', 'http://127.0.0.1:9/never')
    await page.check('#webhook-event-report-failed')
    await page.click('#webhook-form button[type=submit]')
    await page.locator('#webhook-proof-password').waitFor(WAIT)
    await page.keyboard.press('Escape')
    await page.locator('#webhook-proof').waitFor({ ...WAIT, state: 'detached' })
    t.equal(await page.textContent('#webhook-form .form-error'), '', 'cancelled: no error')
    t.match(await page.textContent('#webhook-list'), /No webhook yet/, 'and nothing made')
  })

  await t.test('a Google-only account proves itself with Google', async (t) => {
    const { context, page } = await d.newPage('proof-google')
    t.teardown(() => context.close())
    const email = `google-proof-${process.pid}@example.com`
    const sub = `2000${process.pid}`
    const sendCredential = (credential: string) => page.evaluate(([c, clientId]) => (window as unknown as { handleGoogleCredential: (r: object) => Promise<void> })
      .handleGoogleCredential({ credential: c, select_by: 'btn', clientId }), [credential, TEST_CLIENT_ID])
    await page.goto(PUBLIC_ORIGIN)
    await page.locator('#google-button').waitFor(WAIT)
    await sendCredential(google.idToken({ sub, email, name: 'Only Google' }))
    await page.locator('#sign-out').waitFor(WAIT)
    await openAccount(page)
    await stale(email)

    await page.fill('#api-key-name', 'google proof')
    await page.check('#api-key-scope-profiles-read')
    // the prompt asks the server for a nonce and gives it to GIS, which would sign it into the credential
    const issued = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/google/nonce') && r.request().method() === 'POST')
    await page.click('#api-key-form button[type=submit]')
    const { nonce } = await (await issued).json() as { nonce: string }
    // Google's script is blocked here: its place says so, and the test hands over the credential as GIS would
    await page.locator('#api-key-proof-google', { hasText: 'could not load' }).waitFor(WAIT)
    t.equal(await page.locator('#api-key-proof-password').count(), 0, 'no password to ask for')
    // a credential without the nonce is refused, and the prompt asks for a new nonce for the next try
    const next = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/google/nonce') && r.request().method() === 'POST')
    await sendCredential(google.idToken({ sub, email }))
    await page.locator('#api-key-proof-google-error', { hasText: 'nonce' }).waitFor(WAIT)
    const { nonce: second } = await (await next).json() as { nonce: string }
    t.not(second, nonce, 'a new nonce for the next try')
    await sendCredential(google.idToken({ sub, email, nonce: second }))
    await page.locator('#api-key-secret-value').waitFor(WAIT)
    t.match(await page.locator('#api-key-secret-value').inputValue(), /^pir_/, 'the key is made')

    // deleting the account: confirmed, then proved with Google and a nonce of its own
    page.once('dialog', (dialog) => { dialog.accept().catch(() => {}) })
    const forDeletion = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/google/nonce') && r.request().method() === 'POST')
    await page.click('#delete-with-google')
    const { nonce: third } = await (await forDeletion).json() as { nonce: string }
    await page.locator('#delete-google', { hasText: 'could not load' }).waitFor(WAIT)
    await sendCredential(google.idToken({ sub, email, nonce: third }))
    await page.locator('main', { hasText: 'Your account is deleted' }).waitFor(WAIT)
  })

  t.same(d.problems, [], 'no script error and no CSP violation')
})
