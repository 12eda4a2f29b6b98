// A database that cannot be opened, said in one line that names DATABASE_URL, where it points
// (without the password) and why; what the process prints instead of a driver's stack trace.
import { isDatabaseDown } from './client.ts'

/** the URL as an operator may see it in a log: protocol, user, host, port and database, nothing else */
export function shownUrl (url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.username ? u.username + '@' : ''}${u.host}${u.pathname}`
  } catch {
    return '(not a URL)'
  }
}

function codeOf (err: unknown): string {
  for (let e = err as { code?: unknown, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') return e.code
  }
  return 'unknown'
}

/**
 * The line for an error met while opening (and migrating) the database at `url`, or null when the
 * error is not about reaching it (a failing migration is a bug to show in full). The server's own
 * answer (wrong password, no such role or database) carries no secret and is given as it is.
 */
export function databaseOpenError (err: unknown, url: string): string | null {
  if (!url) return null
  if (isDatabaseDown(err)) return `DATABASE_URL: the database at ${shownUrl(url)} does not answer (${codeOf(err)})`
  const e = err as { name?: string, code?: string, message?: string }
  // 28: invalid authorization; 3D000: no such database; 42501: no permission to connect
  if (e?.name === 'PostgresError' && typeof e.code === 'string' && (e.code.startsWith('28') || e.code === '3D000' || e.code === '42501')) {
    return `DATABASE_URL: the database at ${shownUrl(url)} refuses the connection: ${e.message} (${e.code})`
  }
  return null
}
