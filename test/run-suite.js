// npm test: tap with .taprc, and three things tap cannot choose for itself.
// - The reporter by where the output goes: at a terminal tap's own (a live count, then failures in
//   full); into a pipe or a file test/summary-reporter.js, a line per test file and a short summary,
//   where tap's reporters would leave a redrawn status line per assertion. An explicit --reporter
//   (or -R, or TAP=1) wins.
// - How many groups run at once: one more than the cores. A group keeps about a core busy but waits
//   part of its time (on Chromium, its child processes, its clocks), and one more group fills those
//   gaps at no extra CPU; more than that costs CPU (docs/decisions/the-house.md, Test suite). tap's
//   own default leaves a core free. An explicit --jobs (or -j) wins.
// - The browser tests need Chromium at the path test/dashboard/browser.ts names; without it they
//   skip, and this says so before the run, naming them and how to install it.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const testDir = dirname(fileURLToPath(import.meta.url))
const chromium = /export const CHROMIUM = '([^']+)'/.exec(readFileSync(join(testDir, 'dashboard/browser.ts'), 'utf8'))?.[1]
if (chromium && !existsSync(chromium)) {
  // the files that drive the browser (test/dashboard/ also holds API tests of the dashboard's routes)
  const files = readdirSync(join(testDir, 'dashboard'))
    .filter((f) => f.endsWith('.test.ts') && readFileSync(join(testDir, 'dashboard', f), 'utf8').includes("from './browser.ts'"))
    .map((f) => `dashboard/${f.replace(/\.test\.ts$/, '')}`)
  console.error(`npm test: ${chromium} is missing, so the ${files.length} browser test files skip (${files.join(', ')}); ` +
    'to run them: apt-get install -y chromium')
}

const args = process.argv.slice(2)
const chosen = process.env.TAP === '1' || args.some((a) => a === '-R' || a.startsWith('--reporter') || /^-R./.test(a))
const reporter = chosen || process.stdout.isTTY ? [] : [`--reporter=${join(testDir, 'summary-reporter.js')}`]
const jobs = args.some((a) => a === '-j' || a.startsWith('--jobs') || /^-j\d/.test(a)) ? [] : [`--jobs=${availableParallelism() + 1}`]

const require = createRequire(import.meta.url)
const tap = join(dirname(require.resolve('tap/package.json')), JSON.parse(readFileSync(require.resolve('tap/package.json'), 'utf8')).bin.tap)
const child = spawn(process.execPath, [tap, ...reporter, ...jobs, ...args], { stdio: 'inherit' })
// Ctrl-C reaches tap too (the same process group): wait for it to stop its test processes
process.on('SIGINT', () => {})
process.on('SIGTERM', () => child.kill('SIGTERM'))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
