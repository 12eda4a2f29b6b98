// Bounded polling for things that happen after an answer has left (mail, NOTIFY): never a fixed sleep.
export async function until<T> (probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: { timeoutMs?: number, intervalMs?: number, what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000)
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs ?? 5000} ms waiting for ${opts.what ?? 'a condition'}`)
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 20))
  }
}
