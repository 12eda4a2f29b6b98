// POST /auth/signup: CAPTCHA first, password policy, promocodes consumed atomically,
// no sign-in.
import t from '../tap.ts'
import { build, GOOD_PASSWORD, registeredUser, signedInUser, uniqueEmail } from '../helper.ts'
import { GOOD_CAPTCHA, startSiteverify } from '../peers/siteverify.ts'
import { FAST_ARGON2, PROMO_REFUSED, info, setCookieLine, signup } from './support.ts'

const CAPTCHA_FAILED = { status: 'error', fieldError: { field: 'email', message: 'CAPTCHA check failed, please try again' } }

t.test('success: an unconfirmed account, no JWT, no cookie, SIGNUP_FREE_REPORTS credits', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, SIGNUP_FREE_REPORTS: '2' })
  const email = uniqueEmail()
  const res = await signup(app, { email, acquisition_code: 'spring-campaign' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
  t.equal(setCookieLine(res), undefined, 'sign-up never signs in')
  t.equal(res.headers['set-cookie'], undefined)
  t.same(await app.database.query('select count(*)::int as n from sessions'), [{ n: 0 }])

  const rows = await app.database.query<{ password_hash: string, confirmed_at: Date | null }>('select password_hash, confirmed_at from users where email = $1', [email])
  t.equal(rows.length, 1)
  t.match(rows[0].password_hash, /^\$argon2id\$/, 'argon2id')
  t.notMatch(rows[0].password_hash, GOOD_PASSWORD)
  t.equal(rows[0].confirmed_at, null)

  const { token } = await signedInUser(app, { email, signUp: false })
  const me = (await info(app, token)).json()
  t.match(me, { email, confirmed: false, hasPassword: true, idp: { google: false }, acquisitionCode: 'spring-campaign', reportCredits: 2, subscription: null })
  t.notOk('promocode' in me, 'no promocode')
  t.ok(Date.parse(me.createdAt) > 0)
})

t.test('password policy: each refusal names its reason', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const email = uniqueEmail()
  const cases: Array<[string, string, RegExp]> = [
    ['too short', 'short7!', /at least 8/],
    ['too long (257)', 'x'.repeat(257), /at most 256/],
    ['equal to the e-mail', email, /e-mail/],
    ['equal to the e-mail, other case', email.toUpperCase(), /e-mail/],
    ['a common password', 'password123', /common/],
    ['another dictionary entry, other case', 'BaseBall', /common/]
  ]
  for (const [what, password, reason] of cases) {
    const res = await signup(app, { email, password })
    t.equal(res.statusCode, 200, what)
    t.equal(res.json().status, 'error', what)
    t.equal(res.json().fieldError.field, 'password', what)
    t.match(res.json().fieldError.message, reason, what)
  }
  t.same(await app.database.query('select count(*)::int as n from users'), [{ n: 0 }], 'no account was created')

  t.same((await signup(app, { email, password: 'x'.repeat(256) })).json(), { status: 'success' }, '256 characters are fine')
  t.same((await signup(app, { email: uniqueEmail(), password: 'exactly8' })).json(), { status: 'success' }, '8 characters are fine')
})

t.test("password policy: the service's names, its host and the person's own address are refused as what a password is made of", async (t) => {
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL: 'https://reports.acme-intel.test' })
  const email = 'jordan.mcallister@northwind-mail.test'
  const refused = { status: 'error', fieldError: { field: 'password', message: 'Password must not be made of your e-mail address or the name of this service' } }
  const cases: Array<[string, string]> = [
    ['the product name', 'Profile Interest Reports'],
    ['the product name and a year', 'profileinterest2024'],
    ['the short name dressed up', 'PIR-p4ssw0rd'],
    ["the host's name", 'acme-intel 1234'],
    ['the host in full', 'reports.acme-intel.test'],
    ["the address's local part", 'Jordan.McAllister!'],
    ["a piece of the local part and the mail domain's name", 'mcallister@northwind'],
    ["the local part's pieces, leet", 'j0rd4n mc4ll1st3r']
  ]
  for (const [what, password] of cases) t.same((await signup(app, { email, password })).json(), refused, what)
  t.same(await app.database.query('select count(*)::int as n from users'), [{ n: 0 }], 'no account was created')
  t.same((await signup(app, { email, password: 'jordan walks the long pier at dawn' })).json(), { status: 'success' },
    'a name among enough other words is fine')
})

t.test('20 concurrent sign-ups on a code of 5 uses: exactly 5 get it', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNUP_IP: '100' })
  await app.services.promocodes.create({ code: 'FIVE', maxUses: 5, credits: 3 })
  const emails = Array.from({ length: 20 }, () => uniqueEmail('promo'))
  const answers = await Promise.all(emails.map((email) => signup(app, { email, promocode: 'FIVE' })))

  const ok = answers.filter((r) => r.json().status === 'success')
  const refused = answers.filter((r) => r.json().status !== 'success')
  t.equal(ok.length, 5, 'five succeed')
  t.equal(refused.length, 15)
  for (const r of refused) t.same(r.json(), PROMO_REFUSED)
  for (const r of answers) t.equal(r.statusCode, 200)

  const users = await app.database.query<{ n: number }>("select count(*)::int as n from users where promocode = 'FIVE'")
  t.equal(users[0].n, 5, 'five accounts carry the code')
  t.same(await app.database.query('select count(*)::int as n from users'), [{ n: 5 }], 'a refused sign-up creates no account')
  t.same(await app.database.query("select uses from promocodes where code = 'FIVE'"), [{ uses: 5 }])

  const winner = emails[answers.findIndex((r) => r.json().status === 'success')]
  const { token } = await signedInUser(app, { email: winner, signUp: false })
  t.match((await info(app, token)).json(), { promocode: 'FIVE', reportCredits: 1 + 3 }, "the code's credits are added")
})

t.test('an unknown, expired or used-up code: one message, no account', async (t) => {
  let clock = Date.parse('2030-06-01T12:00:00Z')
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  await app.services.promocodes.create({ code: 'OLD', maxUses: 10, expiresAt: new Date(clock - 1000) })
  await app.services.promocodes.create({ code: 'ONCE', maxUses: 1 })
  await app.services.promocodes.create({ code: 'SOON', maxUses: 10, expiresAt: new Date(clock + 3600_000) })

  t.same((await signup(app, { email: uniqueEmail(), promocode: 'NO-SUCH-CODE' })).json(), PROMO_REFUSED, 'unknown')
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'OLD' })).json(), PROMO_REFUSED, 'expired')
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'ONCE' })).json(), { status: 'success' })
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'ONCE' })).json(), PROMO_REFUSED, 'used up')
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'once' })).json(), PROMO_REFUSED, 'codes are exact')
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'SOON' })).json(), { status: 'success' }, 'before its expiry')
  clock += 2 * 3600_000
  t.same((await signup(app, { email: uniqueEmail(), promocode: 'SOON' })).json(), PROMO_REFUSED, 'after its expiry')
  t.same(await app.database.query('select count(*)::int as n from users'), [{ n: 2 }])
})

t.test('CAPTCHA against a siteverify endpoint', async (t) => {
  const siteverify = await startSiteverify(t)
  const app = await build(t, { ...FAST_ARGON2, CAPTCHA: 'on', CAPTCHA_VERIFY_URL: siteverify.url, CAPTCHA_SECRET: 'the-captcha-secret' })

  const email = uniqueEmail()
  const good = await signup(app, { email, token: GOOD_CAPTCHA })
  t.same(good.json(), { status: 'success' })
  t.equal(siteverify.requests.length, 1)
  t.match(siteverify.requests[0], {
    contentType: /^application\/x-www-form-urlencoded/,
    secret: 'the-captcha-secret',
    response: GOOD_CAPTCHA,
    remoteip: '127.0.0.1'
  }, 'the form carries secret, response and remoteip')

  const bad = await signup(app, { email: uniqueEmail(), token: 'bad-token' })
  t.equal(bad.statusCode, 200)
  t.same(bad.json(), CAPTCHA_FAILED)
  t.equal(siteverify.requests.at(-1)?.response, 'bad-token')

  // A body the schema refuses never reaches the handler; of the handler's checks, the CAPTCHA is first.
  const first = await signup(app, { email: uniqueEmail(), token: 'bad-token', password: 'password123', promocode: 'NO-SUCH-CODE' })
  t.same(first.json(), CAPTCHA_FAILED, 'the CAPTCHA is checked before the password policy and the promocode')
  const taken = await signup(app, { email, token: 'bad-token' })
  t.same(taken.json(), CAPTCHA_FAILED, 'and before the e-mail is looked at')

  await siteverify.close()
  const down = await signup(app, { email: uniqueEmail(), token: GOOD_CAPTCHA })
  t.equal(down.statusCode, 200, 'siteverify down is not a 500')
  t.same(down.json(), CAPTCHA_FAILED)
  t.same(await app.database.query('select count(*)::int as n from users'), [{ n: 1 }], 'only the verified sign-up made an account')
})

t.test('a siteverify endpoint answering an error refuses too', async (t) => {
  const siteverify = await startSiteverify(t, { status: 500 })
  const app = await build(t, { ...FAST_ARGON2, CAPTCHA: 'on', CAPTCHA_VERIFY_URL: siteverify.url, CAPTCHA_SECRET: 's' })
  const res = await signup(app, { email: uniqueEmail(), token: GOOD_CAPTCHA })
  t.equal(res.statusCode, 200)
  t.same(res.json(), CAPTCHA_FAILED)
  t.equal(siteverify.requests.length, 1)
})

t.test('sign-up never signs in, even for an address that is already registered', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)
  const again = await signup(app, { email, password: 'another good password' })
  t.same(again.json(), { status: 'success' }, 'the same answer as a new address')
  t.equal(setCookieLine(again), undefined)
  t.same(await app.database.query('select count(*)::int as n from users where email = $1', [email]), [{ n: 1 }])
})
