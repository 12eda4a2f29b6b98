// A group: several test files run one after another in one process, each in a subtest named for
// its file. Most of a file's cost is not its tests but starting the service the first time in a
// process (loading and compiling the modules, V8 warming up, the first embedded database), about
// 10 s of CPU; a group pays it once for all its files (see docs/decisions/the-house.md, Test suite:
// "Test groups").
import { readFileSync } from 'node:fs'
import tap from 'tap'
import { closeIdleDatabases } from './helper.ts'
import { enterSubtest } from './tap.ts'

/** run the test files `files` (paths under test/) in this process, in this order */
export async function runGroup (files: string[]): Promise<void> {
  for (const file of files) {
    await tap.test(file, async (t) => {
      enterSubtest(t)
      await import(new URL(file, new URL('.//', import.meta.url)).href)
    })
  }
  await closeIdleDatabases()
  tap.comment(cpuComment())
}

/**
 * The CPU the group cost, its own and that of the processes it started and waited for (servers,
 * commands, Chromium), as a comment test/summary-reporter.js reads: the groups run side by side,
 * so their wall times say how they shared two cores and only this says what each one costs.
 * Children's CPU is read from /proc (Node does not expose it); elsewhere it counts as 0.
 */
function cpuComment (): string {
  const own = process.cpuUsage()
  let children = 0
  try {
    // fields 16 and 17 of /proc/self/stat (after the command's name in parentheses), in the
    // kernel's fixed hundredths of a second
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
    children = (Number(fields[13]) + Number(fields[14])) * 10
  } catch {}
  return `group cpu: ${Math.round((own.user + own.system) / 1000)} ms own, ${children} ms children`
}
