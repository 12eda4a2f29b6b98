// argon2id hashing and the sign-up password policy (docs/architecture.md, Security rules).
import argon2 from 'argon2'
import { dictionary } from '@zxcvbn-ts/language-common'
import { createJobGate } from '../limits/job-gate.ts'

export interface Argon2Params { memoryCost: number, timeCost: number, parallelism: number }

const COMMON = new Set((dictionary.passwords as string[]).map((p) => p.toLowerCase()))

/**
 * concurrency: argon2 jobs handed to libuv's thread pool at once (ARGON2_CONCURRENCY), the rest
 * waiting here (src/services/limits/job-gate.ts says why; docs/benchmarks.md, Sign-in under a flood).
 */
export function createPasswordService (params: Argon2Params, concurrency = 3) {
  const options = { type: argon2.argon2id as 2, ...params }
  const gate = createJobGate(concurrency)
  // A sign-in's work up to the end of its hash (the backoff claim, the account's row, the hash) is
  // admitted four times as many at a time as hashes run, the rest waiting here in arrival order:
  // enough that claimed sign-ins are ready whenever a hash ends (while a claim's round trip is
  // shorter than a hash), few enough that a flood's claims never fill the database pool ahead of the
  // statements that answer a sign-in whose hash is done (docs/benchmarks.md, Sign-in under a flood).
  const attempts = createJobGate(concurrency * 4)
  // Verifying against this keeps an unknown e-mail as slow as a wrong password.
  const dummy = gate.run(() => argon2.hash('dummy password for unknown accounts', options))
  // every verification counted: how the per-account backoff is shown to hold under concurrency
  // (pir_argon2_verifications_total)
  let verifications = 0

  return {
    /** argon2 verifications run since start, the dummy ones included */
    get verifications () { return verifications },
    /** argon2 jobs in the thread pool now, waiting for it now, and the most ever in it at once */
    get pool () { return { running: gate.running, waiting: gate.waiting, peak: gate.peak } },
    /** sign-in attempts admitted to their work up to the hash now, waiting now, and the most at once */
    get attempts () { return { running: attempts.running, waiting: attempts.waiting, peak: attempts.peak } },

    /** one sign-in's work up to the end of its hash, admitted with the others in arrival order */
    attempt: <T>(work: () => Promise<T>) => attempts.run(work),

    hash: (password: string) => gate.run(() => argon2.hash(password, options)),

    async verify (hash: string, password: string): Promise<{ ok: boolean, rehash: boolean }> {
      let ok = false
      verifications++
      try { ok = await gate.run(() => argon2.verify(hash, password)) } catch { ok = false }
      return { ok, rehash: ok && argon2.needsRehash(hash, options) }
    },

    async verifyDummy (password: string): Promise<void> {
      verifications++
      const digest = await dummy
      await gate.run(() => argon2.verify(digest, password)).catch(() => false)
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
