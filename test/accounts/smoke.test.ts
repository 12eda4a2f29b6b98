import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'

t.test('sign up, sign in, info, refresh, sign out', async (t) => {
  const app = await build(t)
  const u = await signedInUser(app)
  const info = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.statusCode, 200, info.body)
  t.equal(info.json().email, u.email)
  const ref = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: u.cookie } })
  t.equal(ref.statusCode, 200, ref.body)
  t.comment(JSON.stringify(ref.headers['set-cookie']))
  const out = await app.inject({ method: 'POST', url: '/api/v1/auth/signout', headers: u.auth })
  t.equal(out.statusCode, 200, out.body)
  const info2 = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info2.statusCode, 401)
  t.has(info2.json(), { code: 401, message: 'access denied' })
})
