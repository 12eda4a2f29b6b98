// The service's entry points as the tests' child processes run them: src/ and schemas/ compiled once
// per set of sources by esbuild (type stripping, as tsx does) into .cache/test-build/<hash>/, instead
// of each child loading tsx and compiling on the fly (about a second of CPU a child, and the CLI and
// server tests start hundreds). The files end in .mjs: ES modules anywhere, and src/config.ts keeps
// the defaults of a source run (its production default belongs to dist/, which
// test/deploy/prod-commands.test.ts builds with tsc). The tree sits under the package root, so
// src/package-root.ts finds drizzle/ and public/ as from src/.
// Several test processes may ask at once: each builds into a directory of its own and renames it
// into place; the first rename wins and the others use it.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'esbuild'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SOURCES = ['src', 'schemas']

function sourceFiles (): string[] {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path)
    }
  }
  for (const dir of SOURCES) walk(join(ROOT, dir))
  return files.sort()
}

// a relative import of a .ts file, static or dynamic, becomes the .mjs beside it
const TS_IMPORT = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g

let built: string | undefined

/** the compiled tree for the sources as they are now (built on first use) */
export function compiledTree (): string {
  if (built) return built
  const files = sourceFiles()
  const hash = createHash('sha256')
  for (const file of files) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0')
  const dir = join(ROOT, '.cache', 'test-build', hash.digest('hex').slice(0, 16))
  if (!existsSync(join(dir, '.complete'))) {
    const scratch = `${dir}.${process.pid}.${Date.now()}`
    for (const file of files) {
      const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file })
      const out = join(scratch, relative(ROOT, file)).replace(/\.ts$/, '.mjs')
      mkdirSync(dirname(out), { recursive: true })
      writeFileSync(out, code.replace(TS_IMPORT, '$1$2.mjs$3'))
    }
    writeFileSync(join(scratch, '.complete'), '')
    try {
      renameSync(scratch, dir)
    } catch {
      // another process put its tree there first
      rmSync(scratch, { recursive: true, force: true })
    }
    if (!statSync(join(dir, '.complete')).isFile()) throw new Error(`no compiled tree at ${dir}`)
    removeStaleTrees(dir)
  }
  built = dir
  return dir
}

/** trees of earlier sources, left by earlier runs (one made in the last hour may still be in use) */
function removeStaleTrees (current: string) {
  const parent = dirname(current)
  for (const name of readdirSync(parent)) {
    const path = join(parent, name)
    if (path !== current && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true })
  }
}

/**
 * The node arguments that run an entry point (a path under src/, e.g. src/cli/promo.ts) from the
 * compiled tree. `--liftoff-only`: V8 runs WebAssembly with its baseline compiler alone. A child
 * lives seconds, and compiling PGlite's hot functions again with the optimizing compiler costs it
 * more than they gain in that time: about a third of a server's start on an embedded database
 * (docs/decisions/the-house.md, Test suite). Only the speed of the database's code differs, not
 * what it does; the test processes, which live minutes, keep V8's default.
 */
export function entryArgs (script: string): string[] {
  return ['--liftoff-only', join(compiledTree(), script.replace(/\.ts$/, '.mjs'))]
}
