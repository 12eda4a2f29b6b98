// argon2id hashing and the password policy of sign-up, recovery and a password change
// (docs/architecture.md, Security rules; docs/decisions/accounts.md, Password policy).
import argon2 from 'argon2'
import { dictionary } from '@zxcvbn-ts/language-common'
import { createJobGate } from '../limits/job-gate.ts'

export interface Argon2Params { memoryCost: number, timeCost: number, parallelism: number }

const COMMON = new Set((dictionary.passwords as string[]).map((p) => p.toLowerCase()))

/** the service's own names: a password made of them is among an attacker's first guesses here */
export const SERVICE_WORDS = ['profile interest reporting service', 'profile interest reports', 'profile interest', 'interest reports', 'pir']
export const CONTEXT_MESSAGE = 'Password must not be made of your e-mail address or the name of this service'
// the substitutions people make to dress up a word (p4ssw0rd): folded back before comparing
const LEET: Record<string, string> = { 0: 'o', 1: 'i', 3: 'e', 4: 'a', 5: 's', 7: 't', '@': 'a', $: 's', '!': 'i' }
const fold = (text: string) => text.toLowerCase().replace(/[0134570@$!]/g, (c) => LEET[c]).replace(/[^a-z0-9]/g, '')
// a part shorter than this is kept (two letters of a name are no guess)
const MIN_PART = 3

/** the names of a host or an e-mail domain worth guessing: itself, its labels but the last (the TLD) and their hyphenated pieces */
function hostWords (host: string): string[] {
  const labels = host.toLowerCase().split('.').filter(Boolean)
  const named = labels.length > 1 ? labels.slice(0, -1) : labels
  return [host, ...named, ...named.flatMap((label) => label.split('-'))]
}

/** the words of one address: the whole, its local part and that part's pieces, its domain's names */
function emailWords (email: string): string[] {
  const [local = '', domain = ''] = email.trim().toLowerCase().split('@')
  return [email, local, ...local.split(/[._+-]+/), ...hostWords(domain)]
}

/**
 * Whether `password` is made of `words` (the service's names, its host, the user's address): each
 * word taken out of the folded password, what is left shorter than 8 characters or a common password.
 */
function madeOfContext (password: string, words: string[]): boolean {
  const parts = [...new Set(words.map(fold).filter((w) => w.length >= MIN_PART))].sort((a, b) => b.length - a.length)
  let rest = fold(password)
  for (const part of parts) rest = rest.split(part).join('')
  return rest.length < 8 || COMMON.has(rest)
}

/**
 * concurrency: argon2 jobs handed to libuv's thread pool at once (ARGON2_CONCURRENCY), the rest
 * waiting here (src/services/limits/job-gate.ts says why; docs/benchmarks.md, Sign-in under a flood).
 */
export function createPasswordService (params: Argon2Params, concurrency = 3, publicUrl = '') {
  // the context every policy check compares with: the service's names and the host people reach it at
  const serviceWords = [...SERVICE_WORDS, ...(publicUrl ? hostWords(new URL(publicUrl).hostname) : [])]
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
      if (madeOfContext(password, [...serviceWords, ...emailWords(email)])) return CONTEXT_MESSAGE
      return null
    }
  }
}

export type PasswordService = ReturnType<typeof createPasswordService>
