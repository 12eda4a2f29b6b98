// The environment of a child process a test starts (the server, a CLI), with tap's coverage off.
// tap runs the tests through ts-node but the children run the compiled tree (./compiled.ts), so the
// same source file is compiled to different JavaScript in the two; V8 coverage is merged by byte offsets, and a child's
// ranges laid over the test process's ranges of the same file corrupted the report (CI runs measured
// src/engine at ~56 % functions while its own tests cover all of it). Children are therefore not
// measured; the code they run is covered through app.inject in the tests.
// Removing tap's variables is not enough: @tapjs/processinfo puts its NODE_OPTIONS and variables back
// into every spawn's environment, except those the environment sets itself, so coverage is switched
// off by its own switch.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'

export function withoutCoverage (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
}

/**
 * spawn(command, args, options) without tap's process tracking. @tapjs/processinfo adds its module
 * hooks to NODE_OPTIONS of every process a test starts, and in a child (whose coverage is off, above)
 * they only cost: every module the child loads passes through them, about a second of CPU for a
 * server or a CLI. A shell between the two drops NODE_OPTIONS and becomes the command (exec), so the
 * child's pid, signals and exit are the command's own. The children need no NODE_OPTIONS: their
 * flags are on their command lines.
 */
export function spawnUntracked (command: string, args: string[], options: SpawnOptions): ChildProcess {
  return spawn('/bin/sh', ['-c', 'unset NODE_OPTIONS; exec "$@"', 'sh', command, ...args], options)
}
