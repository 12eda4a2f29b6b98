// GET /client-config (public): what the dashboard shapes itself by, from the configuration.
import t from '../tap.ts'
import { build } from '../helper.ts'

t.test('a development server without SMTP, Google or Stripe', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: '/api/v1/client-config' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { googleClientId: null, billing: false, devOutbox: app.config.mail.outboxDir, development: true })
  t.match(res.headers['cache-control'], /^public, max-age=\d+$/, 'cacheable, briefly')
})

// (production refuses an empty SMTP_URL, so it never has an outbox to show)
t.test('Google, Stripe and SMTP configured', async (t) => {
  const app = await build(t, {
    GOOGLE_CLIENT_IDS: 'first.apps.googleusercontent.com,second.apps.googleusercontent.com',
    STRIPE_SECRET_KEY: 'sk_test_cc', STRIPE_WEBHOOK_SECRET: 'whsec_cc', STRIPE_PRICE_ID: 'price_cc', STRIPE_API_URL: 'http://127.0.0.1:9',
    SMTP_URL: 'smtp://127.0.0.1:9'
  })
  t.same((await app.inject({ url: '/api/v1/client-config' })).json(), {
    googleClientId: 'first.apps.googleusercontent.com', billing: true, devOutbox: null, development: true
  })
})
