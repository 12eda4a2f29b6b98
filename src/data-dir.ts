// DATA_DIR is the service's own (docs/security.md, Findings): the embedded database with its WAL, the
// development secrets, certificates, the socket, the outbox. Whatever the service creates there is
// readable and writable by its owner only (0600 files, 0700 folders), whatever the umask it was
// started with: PGlite unpacks a new database's catalogs, templates and first WAL segment as 0666
// and makes later files with the process's umask, so the process runs with an owner-only umask and
// what is already there is tightened once when the embedded database opens. The folder itself is
// the operator's: one wider than owner-only is reported, not changed.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isMainThread } from 'node:worker_threads'

/** group and others: none of their bits on anything the service creates */
const OTHERS = 0o077

/**
 * Every file and folder this process creates from now on is owner-only: the process's umask.
 * A worker thread cannot set it (it shares its process's), and needs not.
 */
export function ownerOnlyFiles (): void {
  if (isMainThread) process.umask(process.umask() | OTHERS)
}

/** DATA_DIR, or a folder in it, created owner-only when missing (an existing one is left as it is) */
export function makeOwnerOnlyDir (dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
}

/** the permission bits of `dir` when it exists and others may read, write or enter it; else null */
export function widerThanOwner (dir: string): number | null {
  try {
    const mode = statSync(dir).mode & 0o777
    return (mode & OTHERS) !== 0 ? mode : null
  } catch {
    return null
  }
}

/** the one line a start logs for a DATA_DIR wider than owner-only */
export function widerDataDirLine (dir: string, mode: number): string {
  return `DATA_DIR ${dir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): ` +
    `what the service writes in it is owner-only, but the folder is yours to close: chmod 700 ${dir}`
}

/**
 * Takes group and other permissions off everything under `dir` (not `dir` itself, and not through
 * a symbolic link): 0600 files, 0700 folders, unless already narrower. How many it changed.
 */
export function tightenTree (dir: string): number {
  let changed = 0
  const walk = (path: string) => {
    let entries: string[]
    try { entries = readdirSync(path) } catch { return }
    for (const name of entries) {
      const child = join(path, name)
      let stats
      try { stats = lstatSync(child) } catch { continue }
      if (stats.isSymbolicLink()) continue
      if ((stats.mode & OTHERS) !== 0) {
        try {
          chmodSync(child, stats.mode & 0o700)
          changed++
        } catch { /* gone meanwhile, or not ours: left as it is */ }
      }
      if (stats.isDirectory()) walk(child)
    }
  }
  walk(dir)
  return changed
}
