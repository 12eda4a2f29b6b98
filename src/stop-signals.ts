// How a process is asked to stop: close-with-grace, with SIGTERM handled here. close-with-grace takes
// a second signal as "exit now", and a SIGTERM often comes twice: `kill -TERM -- -<pgid>` of
// `npm run start:prod` (systemd's default for such a unit) reaches node directly and again through
// npm, which forwards what it gets; an orchestrator may repeat it too. A repeated SIGTERM is the same
// request, so the drain runs to its end; a second SIGINT (a person pressing Ctrl-C again), or any
// other second signal, still ends the process at once (docs/operations.md, Health and shutdown).
import closeWithGrace from 'close-with-grace'

export interface StopRequest { signal?: string, err?: Error }

export function onStop (delayMs: number, log: { info: (o: object, m: string) => void }, stop: (request: StopRequest) => Promise<void>): void {
  let stopping = false
  let terminated = false
  const graceful = closeWithGrace({ delay: delayMs, skip: ['SIGTERM'] }, async ({ signal, err }) => {
    stopping = true
    // the manual close below is a SIGTERM's
    await stop({ signal: signal ?? (terminated ? 'SIGTERM' : undefined), err })
  })
  process.on('SIGTERM', () => {
    if (stopping) {
      log.info({ signal: 'SIGTERM' }, 'SIGTERM again: already stopping, the drain goes on')
      return
    }
    stopping = true
    terminated = true
    void graceful.close()
  })
}
