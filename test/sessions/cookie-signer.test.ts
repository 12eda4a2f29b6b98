// src/services/sessions/cookie-signer.ts: the session cookie's signer keeps what it computed. Its answers must
// be the ones @fastify/cookie's Signer gives, for the signing secret, a rotated-out one and forgeries.
import t from '../tap.ts'
import { Signer } from '@fastify/cookie'
import { createCookieSigner } from '../../src/services/sessions/cookie-signer.ts'

const NEW = 'the-new-session-secret-0123456789abcdefgh'
const OLD = 'the-old-session-secret-0123456789abcdefgh'

t.test('the same answers as the Signer, asked once or many times', async (t) => {
  const reference = new Signer([NEW, OLD], 'sha256')
  const signer = createCookieSigner([NEW, OLD])
  const byOld = new Signer([OLD], 'sha256').sign('session-b')
  const cases = [
    reference.sign('session-a'), // signed with the signing secret
    byOld, // signed with a rotated-out secret: valid, and due a new signature
    `${reference.sign('session-a').slice(0, -2)}xx`, // a signature changed
    'session-a', // no signature
    'session-a.', // an empty one
    `session-c.${reference.sign('session-a').split('.')[1]}` // another value under a genuine signature
  ]
  for (let round = 0; round < 3; round++) {
    t.equal(signer.sign('session-a'), reference.sign('session-a'), `sign, round ${round}`)
    for (const cookie of cases) t.same(signer.unsign(cookie), reference.unsign(cookie), `unsign ${cookie.slice(0, 24)}…, round ${round}`)
  }
  t.match(signer.unsign(byOld), { valid: true, renew: true, value: 'session-b' })
  t.match(signer.unsign(cases[2]), { valid: false, value: null })
})

t.test('a caller that changes an answer does not change the next one', async (t) => {
  const signer = createCookieSigner([NEW])
  const cookie = signer.sign('session-a')
  const first = signer.unsign(cookie)
  first.valid = false
  first.value = 'someone-else'
  t.same(signer.unsign(cookie), { valid: true, renew: false, value: 'session-a' })
})

t.test('bounded: the oldest entries go, and answers stay right', async (t) => {
  const reference = new Signer([NEW], 'sha256')
  const signer = createCookieSigner([NEW], 3)
  for (let i = 0; i < 10; i++) t.equal(signer.unsign(signer.sign(`s${i}`)).value, `s${i}`)
  t.same(signer.unsign(reference.sign('s0')), reference.unsign(reference.sign('s0')), 'an entry pushed out is computed again')
})
