// Files the service reads at run time (drizzle/ migrations, public/) stay at the package root, beside
// package.json, and are not copied into dist/: the root is found by walking up from this module, so
// src/ run by tsx and dist/src/ run by node read the same files. dist/ must hold no package.json.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function findRoot (from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)))

/** a path under the package root */
export const fromPackageRoot = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts)
