// The second factor's parts alone: TOTP against RFC 6238's own vectors, the one-step window, the
// sealing of secrets under MFA_ENCRYPTION_KEY and its rotation, and the recovery codes' form.
import t from '../tap.ts'
import { codeAt, matchingStep, newTotpSecret, otpauthUrl, stepOf } from '../../src/services/mfa/totp.ts'
import { createSealer } from '../../src/services/mfa/sealing.ts'
import { hashRecoveryCode, newRecoveryCodes, RECOVERY_CODE_COUNT } from '../../src/services/mfa/recovery-codes.ts'

// RFC 6238 appendix B, SHA-1: the ASCII secret "12345678901234567890"; its 8-digit codes, of which
// a 6-digit code is the last six digits (RFC 4226 5.3: the truncated value modulo 10^digits)
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'],
  [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130']
]

t.test('the RFC 6238 SHA-1 vectors, as 6-digit codes', async (t) => {
  for (const [seconds, eight] of RFC_VECTORS) {
    const ms = seconds * 1000
    t.equal(codeAt(RFC_SECRET, ms), eight.slice(2), `T = ${seconds}`)
    t.equal(matchingStep(RFC_SECRET, eight.slice(2), ms), stepOf(ms), 'accepted at its own step')
  }
})

t.test('one step either side is accepted, two are not', async (t) => {
  const secret = newTotpSecret()
  const now = 1_800_000_015_000
  const step = stepOf(now)
  t.equal(matchingStep(secret, codeAt(secret, now - 30_000), now), step - 1, 'the step before')
  t.equal(matchingStep(secret, codeAt(secret, now + 30_000), now), step + 1, 'the step after')
  t.equal(matchingStep(secret, codeAt(secret, now - 60_000), now), null, 'two steps before')
  t.equal(matchingStep(secret, codeAt(secret, now + 60_000), now), null, 'two steps after')
  t.equal(matchingStep(secret, '12345', now), null, 'five digits')
  t.equal(matchingStep(secret, 'abcdef', now), null, 'not digits')
})

t.test('a new secret: 20 random bytes in base32; its otpauth URL names issuer, account and parameters', async (t) => {
  const secret = newTotpSecret()
  t.match(secret, /^[A-Z2-7]{32}$/)
  t.not(newTotpSecret(), secret)
  const url = new URL(otpauthUrl(secret, 'jane@example.com'))
  t.equal(url.protocol, 'otpauth:')
  t.equal(url.searchParams.get('secret'), secret)
  t.equal(url.searchParams.get('issuer'), 'Profile Interest Reports')
  t.equal(url.searchParams.get('algorithm'), 'SHA1')
  t.equal(url.searchParams.get('digits'), '6')
  t.equal(url.searchParams.get('period'), '30')
  t.match(decodeURIComponent(url.pathname), /jane@example\.com/)
})

const KEY_A = 'mfa-key-a-0123456789abcdefghijklmnopqrstuv'
const KEY_B = 'mfa-key-b-0123456789abcdefghijklmnopqrstuv'
const USER = '7d6c1b2e-1f2a-4c3b-9d4e-5f6a7b8c9d0e'

t.test('sealing: AES-256-GCM, the sealed text names its key and holds nothing of the secret', async (t) => {
  const sealer = createSealer(KEY_A)
  const sealed = sealer.seal('JBSWY3DPEHPK3PXP', USER)
  const [version, keyId, iv, body, tag] = sealed.split('.')
  t.equal(version, 'v1')
  t.match(keyId, /^[\w-]{11}$/, 'a key id of 8 bytes')
  t.equal(Buffer.from(iv, 'base64url').length, 12, 'a 96-bit IV')
  t.equal(Buffer.from(tag, 'base64url').length, 16, 'a 128-bit tag')
  t.notMatch(sealed, /JBSWY3DPEHPK3PXP/)
  t.not(sealer.seal('JBSWY3DPEHPK3PXP', USER), sealed, 'a new IV each time')
  t.has(sealer.open(sealed, USER), { plain: 'JBSWY3DPEHPK3PXP', stale: false })
  t.equal(sealer.open(sealed, '00000000-0000-4000-8000-000000000000'), null, "another account's row does not open it")
  t.equal(sealer.open(`${version}.${keyId}.${iv}.${body}.${Buffer.alloc(16).toString('base64url')}`, USER), null, 'a forged tag')
  t.equal(sealer.open('not sealed', USER), null)
})

t.test('rotation: a previous key still opens what it sealed, and says it is stale; an unknown key opens nothing', async (t) => {
  const old = createSealer(KEY_A).seal('JBSWY3DPEHPK3PXP', USER)
  const rotated = createSealer(KEY_B, [KEY_A])
  t.has(rotated.open(old, USER), { plain: 'JBSWY3DPEHPK3PXP', stale: true })
  t.has(rotated.open(rotated.seal('JBSWY3DPEHPK3PXP', USER), USER), { plain: 'JBSWY3DPEHPK3PXP', stale: false })
  t.equal(createSealer(KEY_B).open(old, USER), null, 'without the old key')
  t.not(old.split('.')[1], rotated.seal('x', USER).split('.')[1], 'each key has its own id')
})

t.test('recovery codes: ten, different, 120 bits each; the hash ignores case, spaces and dashes', async (t) => {
  const codes = newRecoveryCodes()
  t.equal(codes.length, RECOVERY_CODE_COUNT)
  t.equal(new Set(codes).size, RECOVERY_CODE_COUNT)
  for (const c of codes) t.match(c, /^[a-z2-7]{4}(-[a-z2-7]{4}){5}$/)
  const code = codes[0]
  t.equal(hashRecoveryCode(` ${code.toUpperCase().replace(/-/g, ' ')} `), hashRecoveryCode(code))
  t.not(hashRecoveryCode(codes[1]), hashRecoveryCode(code))
})
