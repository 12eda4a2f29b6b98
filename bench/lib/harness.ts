// What every bench entry point (bench/run.ts, bench/load.ts) does around its measurements: a scratch
// directory with its logs, one pair of secrets, clean-ups run last-deferred-first (on SIGINT or
// SIGTERM too, so that the children stop and the databases are dropped), and the scratch directory
// removed at the end unless BENCH_KEEP=1.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newSecrets, type BenchRun } from './service.ts'
import { settings } from './settings.ts'

export interface Harness {
  run: BenchRun
  defer: (fn: () => Promise<void> | void) => void
  /** run the deferred clean-ups now */
  cleanUp: () => Promise<void>
  /** whether SIGINT or SIGTERM has come */
  interrupted: () => boolean
  /** remove the scratch directory (or say where it was kept) */
  finish: () => void
}

export function startHarness (): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'pir-bench-'))
  const logDir = join(dir, 'logs')
  mkdirSync(logDir, { recursive: true })
  if (settings.cpuProfDir) mkdirSync(settings.cpuProfDir, { recursive: true })
  let interrupted = false
  const cleanups: Array<() => Promise<void> | void> = []
  async function cleanUp () {
    while (cleanups.length) {
      const fn = cleanups.pop()!
      try { await fn() } catch (err) { console.error(`  cleanup: ${(err as Error).message}`) }
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true
      console.error(`\n${signal}: stopping the children and dropping the databases`)
      cleanUp().finally(() => process.exit(130))
    })
  }
  return {
    run: { dir, logDir, ...newSecrets() },
    defer: (fn) => { cleanups.push(fn) },
    cleanUp,
    interrupted: () => interrupted,
    finish () {
      if (!settings.keep) rmSync(dir, { recursive: true, force: true })
      else console.log(`scratch kept: ${dir}`)
    }
  }
}
