// Shared by the dashboard's browser tests: a listening app, headless Chromium that opens it at a
// public origin, the accessibility check (axe-core in the page) and the screenshots (laptop and phone
// widths, light and dark) under test/artifacts/ (git-ignored).
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { build, CHEAP_ARGON2, GOOD_PASSWORD, registeredUser, type RegisteredUser } from '../helper.ts'
import type { AppDeps } from '../../src/app.ts'

export const CHROMIUM = '/usr/bin/chromium'
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url))
export const WAIT = { timeout: 20_000 }
export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

// The page is opened at this public origin, as a user behind a proxy would: the app's PUBLIC_URL,
// which the Origin check of the cookie-authenticated refresh and sign-out trusts (a page of another
// origin may not use the cookie), and the origin of the mailed links. Chromium maps it onto the port-0 listener (--host-resolver-rules).
// localhost keeps it a secure context, where Chromium stores the Secure session cookie over http.
export const PUBLIC_ORIGIN = 'http://localhost:8443'

/** false when Chromium is there, else the reason the browser tests skip */
export const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests`

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** a small, fast password hash: the browser tests sign in many times */
export const FAST_HASH = CHEAP_ARGON2

/** headless Chromium that opens PUBLIC_ORIGIN on this port-0 listener (--host-resolver-rules) */
export async function launchChromium (port: number): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--host-resolver-rules=MAP localhost:8443 127.0.0.1:${port}`
    ]
  })
}

/** deps: what the app is built with besides its configuration (a clock the test moves) */
export async function startDashboard (t: Test, env: Record<string, string> = {}, deps: AppDeps = {}) {
  mkdirSync(ARTIFACTS, { recursive: true })
  const app = await build(t, { WORKERS: '0', PUBLIC_URL: PUBLIC_ORIGIN, RATE_LIMIT_SIGNUP_IP: '100', ...FAST_HASH, ...env }, deps)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo

  const browser = await launchChromium(port)
  // teardowns run last in, first out: the browser closes before the app
  t.teardown(() => browser.close())

  /** script errors and CSP violations seen by any page; a test ends by checking it is empty */
  const problems: string[] = []

  /** a fresh browser profile (no cookie): one per test, so that no test depends on another */
  const newPage = async (name: string, viewport = DESKTOP, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext, page: Page }> => {
    const context = await browser.newContext({ viewport, ...options })
    // Google's script cannot load offline; the tests drive its callback instead
    await context.route('https://accounts.google.com/**', (route) => route.abort('blockedbyclient'))
    const page = await context.newPage()
    page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`))
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|SyntaxError|TypeError|ReferenceError/.test(msg.text())) problems.push(`${name}: ${msg.text()}`)
    })
    return { context, page }
  }

  /**
   * A fresh browser profile signed in through the form, as a person would, closed when the test
   * ends; `user` is a new account unless given.
   */
  const signedInPage = async (t: Test, name: string, opts: { user?: RegisteredUser, viewport?: typeof DESKTOP, context?: BrowserContextOptions } = {}) => {
    const user = opts.user ?? await registeredUser(app)
    const { context, page } = await newPage(name, opts.viewport, opts.context)
    t.teardown(() => context.close())
    await signInThroughForm(page, user)
    return { user, context, page }
  }

  return { app, browser, port, problems, newPage, signedInPage }
}

/**
 * fill the sign-in form on the page with the address and password (GOOD_PASSWORD unless given) and
 * send it; waits for nothing, since what follows is the test's (signed in, a second step, an error)
 */
export async function submitSignIn (page: Page, user: { email: string, password?: string }) {
  await page.fill('#signin-email', user.email)
  await page.fill('#signin-password', user.password ?? GOOD_PASSWORD)
  await page.click('#signin-form button[type=submit]')
}

/** open the page at PUBLIC_ORIGIN and sign in through its form; resolves once signed in */
export async function signInThroughForm (page: Page, user: { email: string, password?: string }) {
  await page.goto(PUBLIC_ORIGIN)
  await submitSignIn(page, user)
  await page.locator('#sign-out').waitFor(WAIT)
}

export interface AxeViolation { id: string, impact: string | null, help: string, targets: string[] }

/** axe-core run in the page: the serious and critical violations */
export async function axeViolations (page: Page): Promise<AxeViolation[]> {
  // evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern
  await page.evaluate(AXE_SOURCE)
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string, impact: string | null, help: string, nodes: Array<{ target: string[] }> }> }> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
  })
}

/**
 * The view as it is: screenshots at both widths in light and dark, and the accessibility check in
 * light at the page's width and in dark at the phone's (dark mode has colours of its own, the phone
 * layout hides some labels). Leaves the page at its viewport, light.
 */
export async function inspectView (t: Test, page: Page, name: string) {
  const viewport = page.viewportSize() ?? DESKTOP
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    t.same(await axeViolations(page), [], `${name}, ${colorScheme}: no serious or critical accessibility violation`)
    for (const [width, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await page.setViewportSize(size)
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: `${ARTIFACTS}${name}-${width}-${colorScheme}.png`, fullPage: true })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize(viewport)
}

/** the path and query of a mailed link, opened at the public origin */
export function linkIn (text: string, kind: 'confirm' | 'recovery'): string {
  const match = new RegExp(`${PUBLIC_ORIGIN}/${kind}/[A-Za-z0-9_-]+`).exec(text)
  if (!match) throw new Error(`no ${kind} link in the mail`)
  return match[0]
}
