// The alert digest loop: in every process that runs report workers (WORKERS >= 1, `npm run worker`),
// a pass over the users whose digest is due every pollMs (docs/decisions/watches-and-alerts.md,
// Watches and alerts). Any number of processes may run it: a user's digest is claimed by a
// conditional update, so only one of them sends it (src/services/alerts/digest.ts).
import type { AlertDigest } from '../services/alerts/digest.ts'
import { startPolling } from './polling.ts'

/** how often the alerts are looked at for due digests: a digest is at most this late */
export const DIGEST_POLL_MS = 60_000

export interface DigestLoopOptions {
  pollMs?: number
  log: { warn: (o: object, m: string) => void }
}

/** start the loop; stop() ends it after the pass in flight */
export function startDigestLoop (digest: Pick<AlertDigest, 'sendDue'>, opts: DigestLoopOptions): { stop: () => Promise<void> } {
  return startPolling(async () => {
    try {
      await digest.sendDue()
    } catch (err) {
      opts.log.warn({ err: { message: (err as Error).message } }, 'alert digests could not be sent; trying again at the next pass')
    }
    return false
  }, opts.pollMs ?? DIGEST_POLL_MS)
}
