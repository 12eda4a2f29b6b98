// A loop that runs a pass, then the next one after pollMs, or at once while the pass says there is
// more to do; stop() ends it after the pass in flight. The background work of a worker process (alert
// batches, digest mails) runs in such loops.

/** a pass: true when it found work and the next should start at once; it must not throw */
export type Pass = () => Promise<boolean>

export function startPolling (pass: Pass, pollMs: number): { stop: () => Promise<void> } {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<boolean> = Promise.resolve(false)

  const loop = async () => {
    current = pass()
    const busy = await current
    if (stopped) return
    if (busy) setImmediate(() => { void loop() })
    else timer = setTimeout(() => { void loop() }, pollMs)
  }
  void loop()

  return {
    async stop () {
      stopped = true
      clearTimeout(timer)
      await current
    }
  }
}
