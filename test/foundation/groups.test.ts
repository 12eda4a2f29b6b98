// `npm test` runs the groups of test/groups/, not the test files themselves: a test file that no
// group names would never run, and one named twice would run twice.
import t from '../tap.ts'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const TEST = fileURLToPath(new URL('..', import.meta.url))

t.test('every test file runs in exactly one group', async (t) => {
  const files = (readdirSync(TEST, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('groups/') && !f.startsWith('faults/'))
    .sort()
  const named = readdirSync(new URL('groups/', new URL('..', import.meta.url)))
    .flatMap((g) => [...readFileSync(new URL(`groups/${g}`, new URL('..', import.meta.url)), 'utf8').matchAll(/'([\w/-]+\.test\.ts)'/g)].map((m) => m[1]))
  t.ok(files.length > 50, `${files.length} test files found`)
  t.same(files.filter((f) => !named.includes(f)), [], 'no file is left out')
  t.same(named.filter((f, i) => named.indexOf(f) !== i), [], 'no file is named twice')
  t.same(named.filter((f) => !files.includes(f)), [], 'every name is a file')
})
