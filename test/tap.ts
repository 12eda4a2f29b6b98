// The `t` every test file imports. A test file runs either alone (`npx tap test/accounts/signin.test.ts`:
// `t` is tap's root test) or as one of the files of a group (test/groups/*.test.ts, what `npm test`
// runs): the group gives each file a subtest of its own and makes it this `t` while the file's
// tests run, so the file's top-level tests, before and teardown hooks belong to that subtest.
// `export { current as default }` exports the binding, not its value: a file that reads `t` sees the
// subtest its group set.
import tap, { type Test } from 'tap'

let current: Test = tap

export { current as default }
export type { Test }

/** the `t` of the files a group imports from now on */
export function enterSubtest (t: Test): void {
  current = t
}
