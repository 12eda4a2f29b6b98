// The environment of a child process a test starts (the server, a CLI), with tap's coverage off.
// tap runs the tests through ts-node but the children run through tsx, so the same source file is
// compiled to different JavaScript in the two; V8 coverage is merged by byte offsets, and a child's
// ranges laid over the test process's ranges of the same file corrupted the report (CI runs measured
// src/engine at ~56 % functions while its own tests cover all of it). Children are therefore not
// measured; the code they run is covered through app.inject in the tests.
// Removing tap's variables is not enough: @tapjs/processinfo puts its NODE_OPTIONS and variables back
// into every spawn's environment, except those the environment sets itself, so coverage is switched
// off by its own switch.
export function withoutCoverage (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
}
