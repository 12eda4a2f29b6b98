// One-time recovery codes: ten at each TOTP confirmation, 24 base32 characters (120 random bits) shown
// as six groups of four. Only their SHA-256 is stored: from 112 bits a stolen table cannot be searched
// back to the codes, so no salted slow hash is needed (docs/decisions/accounts.md, Second factors).
import { createHash, randomBytes } from 'node:crypto'

export const RECOVERY_CODE_COUNT = 10
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'
// 5 bits a character (each byte's low five bits: 256 is a multiple of 32, so every character is as likely)
const LENGTH = 24

function newCode (): string {
  const bytes = randomBytes(LENGTH)
  let out = ''
  for (let i = 0; i < LENGTH; i++) out += ALPHABET[bytes[i]! & 31]
  return out.match(/.{4}/g)!.join('-')
}

/** ten new codes as the person is shown them */
export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newCode)

/** the stored form of a code as typed: case, spaces and dashes do not matter */
export function hashRecoveryCode (typed: string): string {
  return createHash('sha256').update(typed.toLowerCase().replace(/[\s-]/g, '')).digest('hex')
}
