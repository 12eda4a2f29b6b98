// argon2id hashing (DESIGN 8.1) and the sign-up password policy (DESIGN 3.2).
import argon2 from 'argon2'
import { dictionary } from '@zxcvbn-ts/language-common'

export interface Argon2Params { memoryCost: number, timeCost: number, parallelism: number }

const COMMON = new Set((dictionary.passwords as string[]).map((p) => p.toLowerCase()))

export function createPasswordService (params: Argon2Params) {
  const options = { type: argon2.argon2id as 2, ...params }
  // Verifying against this keeps an unknown e-mail as slow as a wrong password.
  const dummy = argon2.hash('dummy password for unknown accounts', options)
  // every verification counted: how the per-account backoff is shown to hold under concurrency
  // (pir_argon2_verifications_total)
  let verifications = 0

  return {
    /** argon2 verifications run since start, the dummy ones included */
    get verifications () { return verifications },

    hash: (password: string) => argon2.hash(password, options),

    async verify (hash: string, password: string): Promise<{ ok: boolean, rehash: boolean }> {
      let ok = false
      verifications++
      try { ok = await argon2.verify(hash, password) } catch { ok = false }
      return { ok, rehash: ok && argon2.needsRehash(hash, options) }
    },

    async verifyDummy (password: string): Promise<void> {
      verifications++
      await argon2.verify(await dummy, password).catch(() => false)
    },

    /** the reason a new password is refused, or null */
    policy (password: string, email: string): string | null {
      if (password.length < 8) return 'Password must be at least 8 characters'
      if (password.length > 256) return 'Password must be at most 256 characters'
      if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'Password must not be your e-mail address'
      if (COMMON.has(password.toLowerCase())) return 'This password is too common, choose another one'
      return null
    }
  }
}

export type PasswordService = ReturnType<typeof createPasswordService>
