// One-time recovery codes: ten at each TOTP confirmation, 16 base32 characters (80 random bits) shown
// as four groups of four. Only their SHA-256 is stored: at 80 bits a stolen table cannot be searched
// back to the codes, so no slow hash is needed (docs/decisions.md, Second factors).
import { createHash, randomBytes } from 'node:crypto'

export const RECOVERY_CODE_COUNT = 10
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

function newCode (): string {
  const bytes = randomBytes(16)
  let out = ''
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! & 31]
  return out.match(/.{4}/g)!.join('-')
}

/** ten new codes as the person is shown them */
export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newCode)

/** the stored form of a code as typed: case, spaces and dashes do not matter */
export function hashRecoveryCode (typed: string): string {
  return createHash('sha256').update(typed.toLowerCase().replace(/[\s-]/g, '')).digest('hex')
}
