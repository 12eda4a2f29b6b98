// POST /billing/promocode (Bearer): a signed-in account redeems a promo code for its credits, once
// per code (the code given at sign-up counts), with the sign-up's one message for every refusal;
// the code's use and the credit in one transaction, so concurrent submits add the credits once. No
// Stripe is configured here: promo codes do not need it.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, signedInUser } from '../helper.ts'
import { FAST_ARGON2, PROMO_REFUSED } from '../accounts/support.ts'

const redeem = (app: FastifyInstance, auth: Record<string, string>, promocode: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/billing/promocode', headers: auth, payload: { promocode } })
const credits = async (app: FastifyInstance, auth: Record<string, string>) =>
  (await app.inject({ url: '/api/v1/auth/info', headers: auth })).json().reportCredits as number
const uses = async (app: FastifyInstance, code: string) =>
  (await app.database.query<{ uses: number }>('select uses from promocodes where code = $1', [code]))[0]?.uses

t.test('a code adds its credits once per account; every refusal is the sign-up message', async (t) => {
  let clock = Date.now()
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { promocodes } = app.services
  await promocodes.create({ code: 'THREE', maxUses: 10, credits: 3 })
  await promocodes.create({ code: 'ONCE', maxUses: 1 })
  await promocodes.create({ code: 'SOON', maxUses: 10, expiresAt: new Date(clock + 3600_000) })
  await promocodes.create({ code: 'WELCOME', maxUses: 10, credits: 2 })
  const u = await signedInUser(app)
  const start = await credits(app, u.auth)

  t.same((await redeem(app, u.auth, 'THREE')).json(), { status: 'success' })
  t.equal(await credits(app, u.auth), start + 3, 'its credits are added (and /auth/info shows them at once)')
  t.same((await redeem(app, u.auth, 'THREE')).json(), PROMO_REFUSED, 'a second time: refused')
  t.equal(await credits(app, u.auth), start + 3, 'nothing added twice')
  t.equal(await uses(app, 'THREE'), 1, 'one use taken')

  t.same((await redeem(app, u.auth, 'NOSUCH')).json(), PROMO_REFUSED, 'unknown')
  const other = await signedInUser(app)
  t.same((await redeem(app, other.auth, 'ONCE')).json(), { status: 'success' })
  t.same((await redeem(app, u.auth, 'ONCE')).json(), PROMO_REFUSED, 'used up')
  clock += 2 * 3600_000
  t.same((await redeem(app, u.auth, 'SOON')).json(), PROMO_REFUSED, 'expired')
  t.equal(await uses(app, 'SOON'), 0, 'a refused code takes no use')
  t.equal(await credits(app, u.auth), start + 3)
  const rows = await app.database.query<{ code: string }>('select code from user_promocodes where user_id = (select id from users where email = $1)', [u.email])
  t.same(rows, [{ code: 'THREE' }], 'a refused redemption leaves no row')

  // the code given at sign-up is already this account's
  const welcomed = await signedInUser(app, { signUpBody: { promocode: 'WELCOME' } })
  const after = await credits(app, welcomed.auth)
  t.same((await redeem(app, welcomed.auth, 'WELCOME')).json(), PROMO_REFUSED, 'the sign-up code again: refused')
  t.equal(await credits(app, welcomed.auth), after)
  t.same((await redeem(app, welcomed.auth, 'THREE')).json(), { status: 'success' }, 'another code: fine')

  // a form endpoint: what the schema refuses is a field error too; credentials and bodies as everywhere
  t.same((await redeem(app, u.auth, '')).json(), PROMO_REFUSED, 'empty')
  t.same((await redeem(app, u.auth, 'x'.repeat(65))).json(), PROMO_REFUSED, 'too long')
  t.same((await app.inject({ method: 'POST', url: '/api/v1/billing/promocode', headers: u.auth, payload: {} })).json(), PROMO_REFUSED, 'missing')
  t.equal((await redeem(app, {}, 'THREE')).statusCode, 401, 'a token is needed')
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/billing/promocode', headers: { ...u.auth, 'content-type': 'application/json' }, payload: '{' })).statusCode, 400)
})

t.test('concurrent submits of one code by one account add its credits once', async (t) => {
  const app = await build(t, FAST_ARGON2)
  await app.services.promocodes.create({ code: 'RACE', maxUses: 100, credits: 5 })
  const u = await signedInUser(app)
  const start = await credits(app, u.auth)
  const answers = await Promise.all(Array.from({ length: 6 }, () => redeem(app, u.auth, 'RACE')))
  const ok = answers.filter((a) => a.json().status === 'success')
  t.equal(ok.length, 1, 'one success')
  t.ok(answers.every((a) => a.statusCode === 200), 'the others are field errors, not failures')
  t.equal(await credits(app, u.auth), start + 5, 'the credits once')
  t.equal(await uses(app, 'RACE'), 1, 'one use')
})

t.test('too many attempts by one account are 429 with Retry-After', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_PROMOCODE_USER: '2' })
  const u = await signedInUser(app)
  const other = await signedInUser(app)
  t.same((await redeem(app, u.auth, 'GUESS1')).json(), PROMO_REFUSED)
  t.same((await redeem(app, u.auth, 'GUESS2')).json(), PROMO_REFUSED)
  const limited = await redeem(app, u.auth, 'GUESS3')
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After')
  t.same((await redeem(app, other.auth, 'GUESS1')).json(), PROMO_REFUSED, 'per account: another one still may')
})
