// JWT_SECRET, SESSION_SECRET and MFA_ENCRYPTION_KEY, or outside production the ones generated once
// into DATA_DIR/secrets.json, so that a fresh clone starts and its sessions (and enrolled second
// factors) survive a restart.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../schemas/env.ts'

export interface SigningSecrets { jwt: string, session: string, mfa: string, generated: boolean }

type DevSecrets = Omit<SigningSecrets, 'generated'>

const fresh = () => randomBytes(32).toString('base64url')

function devSecrets (dataDir: string): DevSecrets {
  const file = join(dataDir, 'secrets.json')
  let kept: Partial<Record<keyof DevSecrets, unknown>> = {}
  try { kept = JSON.parse(readFileSync(file, 'utf8')) as typeof kept } catch {}
  // a damaged or missing file: new secrets (everyone signed in is signed out); a file written before a
  // secret existed gains it, and keeps the others
  const secrets = {
    jwt: typeof kept.jwt === 'string' ? kept.jwt : fresh(),
    session: typeof kept.session === 'string' ? kept.session : fresh(),
    mfa: typeof kept.mfa === 'string' ? kept.mfa : fresh()
  }
  if (secrets.jwt === kept.jwt && secrets.session === kept.session && secrets.mfa === kept.mfa) return secrets
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 })
  return secrets
}

/**
 * The secrets (generated: they come from the file). Production generates nothing: an unset secret
 * there is one of the production refusals, and no file is written.
 */
export function signingSecrets (e: Env, dataDir: string, production: boolean, problems: string[]): SigningSecrets {
  const needDev = !production && (!e.JWT_SECRET || !e.SESSION_SECRET || !e.MFA_ENCRYPTION_KEY)
  const generated = needDev ? devSecrets(dataDir) : undefined
  const jwt = e.JWT_SECRET || generated?.jwt || ''
  const session = e.SESSION_SECRET || generated?.session || ''
  const mfa = e.MFA_ENCRYPTION_KEY || generated?.mfa || ''
  if (jwt && Buffer.byteLength(jwt) < 32) problems.push('JWT_SECRET must be at least 32 bytes')
  if (session && Buffer.byteLength(session) < 32) problems.push('SESSION_SECRET must be at least 32 bytes')
  if (mfa && Buffer.byteLength(mfa) < 32) problems.push('MFA_ENCRYPTION_KEY must be at least 32 bytes')
  return { jwt, session, mfa, generated: needDev }
}
