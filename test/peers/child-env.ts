// The environment of a child process a test starts (the server, a CLI), minus tap's coverage hooks.
// tap runs the tests through ts-node but the children run through tsx, so the same source file is
// compiled to different JavaScript in the two; V8 coverage is merged by byte offsets, and a child's
// ranges laid over the test process's ranges of the same file corrupted the report (one CI run
// measured src/engine at ~60 % while its own tests cover all of it). Children are therefore not
// measured; the code they run is covered through app.inject in the tests.
const TAP_COVERAGE = /^(_TAPJS_PROCESSINFO_.*|NODE_V8_COVERAGE)$/

export function withoutCoverage (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(env)) if (!TAP_COVERAGE.test(k)) out[k] = v
  const options = (out.NODE_OPTIONS ?? '').split(/\s+/).filter((o) => o && !o.includes('@tapjs/processinfo'))
  if (options.length) out.NODE_OPTIONS = options.join(' ')
  else delete out.NODE_OPTIONS
  return out
}
