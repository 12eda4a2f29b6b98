// JWT_SECRET and SESSION_SECRET, or outside production the ones generated once into
// DATA_DIR/secrets.json, so that a fresh clone starts and its sessions survive a restart.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../schemas/env.ts'

export interface SigningSecrets { jwt: string, session: string, generated: boolean }

function devSecrets (dataDir: string): { jwt: string, session: string } {
  const file = join(dataDir, 'secrets.json')
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { jwt?: unknown, session?: unknown }
    if (typeof kept.jwt === 'string' && typeof kept.session === 'string') return { jwt: kept.jwt, session: kept.session }
  } catch {}
  // none yet, or a damaged file: new ones (everyone signed in is signed out)
  const secrets = { jwt: randomBytes(32).toString('base64url'), session: randomBytes(32).toString('base64url') }
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 })
  return secrets
}

/**
 * The secrets (generated: they come from the file). Production generates nothing: an unset secret
 * there is one of the production refusals, and no file is written.
 */
export function signingSecrets (e: Env, dataDir: string, production: boolean, problems: string[]): SigningSecrets {
  const needDev = !production && (!e.JWT_SECRET || !e.SESSION_SECRET)
  const generated = needDev ? devSecrets(dataDir) : undefined
  const jwt = e.JWT_SECRET || generated?.jwt || ''
  const session = e.SESSION_SECRET || generated?.session || ''
  if (jwt && Buffer.byteLength(jwt) < 32) problems.push('JWT_SECRET must be at least 32 bytes')
  if (session && Buffer.byteLength(session) < 32) problems.push('SESSION_SECRET must be at least 32 bytes')
  return { jwt, session, generated: needDev }
}
