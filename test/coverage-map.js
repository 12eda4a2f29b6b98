// Coverage is measured on the service's own code: src/ and schemas/, not the tests. The entry points
// (src/server.ts, src/cli/*) run only as child processes in their tests, and children are not
// measured (test/peers/child-env.ts says why), so they are left out rather than counted as uncovered.
export default () => ['src/!(cli)/**', 'src/!(server).ts', 'schemas/**']
