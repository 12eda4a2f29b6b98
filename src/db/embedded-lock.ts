// One process owns the embedded database: PGlite runs PostgreSQL inside the process that opens its
// folder, and a second process opening the same folder writes the same files unseen by the first.
// The owner holds DATA_DIR/pglite.lock, a small JSON file naming it (pid, host, role, the socket a
// server serves the database on). The file is created whole or not at all (written aside, then
// hard-linked into place: link fails when the name exists), so a reader never sees half of it.
// A holder is alive while its pid is (signal 0); a lock whose process is gone (killed, crashed) is
// taken over at once, with no waiting period: a holder that blocks its event loop for a long
// statement keeps its lock, which a lock kept fresh by a timer would lose. A pid reused by another
// process after a crash makes the lock look held: the refusal then names the file to delete.
import { hostname } from 'node:os'
import { join } from 'node:path'
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'

export const LOCK_FILE = 'pglite.lock'

export interface LockHolder {
  pid: number
  host: string
  /** a server serves the database on `socket`; a command (promo, import, migrate, worker) serves nothing */
  role: 'server' | 'command'
  /** what holds it, for the refusal a second process prints: "npm start", "npm run promo" */
  name: string
  /** the Unix socket a server serves the embedded database on */
  socket?: string
}

export interface EmbeddedLock {
  readonly path: string
  /** removes the lock file if it is still this process's; safe to call more than once */
  release: () => void
}

export type LockOutcome = { lock: EmbeddedLock } | { heldBy: LockHolder, path: string }

function readHolder (path: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as LockHolder
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : null
  } catch {
    return null
  }
}

/** whether the holder may still run: its pid is alive here, or it is on another host (which cannot be asked) */
export function holderAlive (h: LockHolder): boolean {
  if (h.host !== hostname()) return true
  try {
    process.kill(h.pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists under another user
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function tryUnlink (path: string): void {
  try { unlinkSync(path) } catch { /* already gone */ }
}

/**
 * Takes DATA_DIR/pglite.lock for this process, or says who holds it. A dead holder's lock is moved
 * aside (rename is atomic: of two processes taking over the same stale lock, one moves it and the
 * other finds it gone) and checked to be the one found dead before it is deleted; a live lock moved
 * by mistake is linked back.
 */
export function takeEmbeddedLock (dataDir: string, me: Omit<LockHolder, 'pid' | 'host'>): LockOutcome {
  const path = join(dataDir, LOCK_FILE)
  const holder: LockHolder = { pid: process.pid, host: hostname(), ...me }
  const body = JSON.stringify(holder) + '\n'
  const aside = `${path}.${process.pid}`
  for (let attempt = 0; attempt < 5; attempt++) {
    writeFileSync(aside, body)
    try {
      linkSync(aside, path)
      tryUnlink(aside)
      return { lock: ownLock(path, body) }
    } catch (err) {
      tryUnlink(aside)
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const found = readHolder(path)
    if (found && holderAlive(found)) return { heldBy: found, path }
    // dead, or unreadable (a file of another format): move it aside and look again
    const stale = `${path}.stale.${process.pid}`
    try {
      renameSync(path, stale)
    } catch {
      continue
    }
    const moved = readHolder(stale)
    if (moved && found && moved.pid !== found.pid && holderAlive(moved)) {
      try { linkSync(stale, path) } catch { /* a third process took it: it is the holder */ }
    }
    tryUnlink(stale)
  }
  const last = readHolder(path)
  if (last) return { heldBy: last, path }
  throw new Error(`cannot take ${path}`)
}

function ownLock (path: string, body: string): EmbeddedLock {
  let held = true
  const release = () => {
    if (!held) return
    held = false
    process.off('exit', release)
    // only this process's own file: a lock taken over (after this one was deemed dead) is not ours
    try {
      if (readFileSync(path, 'utf8') === body) unlinkSync(path)
    } catch { /* already gone */ }
  }
  // a command that ends with process.exit() before closing its database still leaves no lock behind
  process.on('exit', release)
  return { path, release }
}

/**
 * The one line a second process prints when the embedded database is taken; `why` replaces the
 * usual remedy when the holder is a server that did not let a command in.
 */
export function heldMessage (dataDir: string, h: LockHolder, path: string, why?: string): string {
  const who = `${h.name} (pid ${h.pid}${h.host === hostname() ? '' : ` on ${h.host}`})`
  const folder = join(dataDir, 'pglite')
  const here = h.host === hostname()
  const remedy = why ?? (here
    ? `stop it first${h.role === 'command' ? ' or wait for it to finish' : ''}, or set DATABASE_URL to a PostgreSQL database`
    : 'stop it')
  return `the embedded database ${folder} is in use by ${who}: ${remedy} (lock file ${path}, to delete only if that process is not running)`
}
