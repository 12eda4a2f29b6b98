// A group: several test files run one after another in one process, each in a subtest named for
// its file. Most of a file's cost is not its tests but starting the service the first time in a
// process (loading and compiling the modules, V8 warming up, the first embedded database), about
// 10 s of CPU; a group pays it once for all its files (see docs/decisions/the-house.md, Test suite:
// "Test groups").
import tap from 'tap'
import { enterSubtest } from './tap.ts'

/** run the test files `files` (paths under test/) in this process, in this order */
export async function runGroup (files: string[]): Promise<void> {
  for (const file of files) {
    await tap.test(file, async (t) => {
      enterSubtest(t)
      await import(new URL(file, new URL('.//', import.meta.url)).href)
    })
  }
}
