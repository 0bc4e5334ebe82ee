// Drives Debian's Chromium through playwright-core for the UI tests: a browser per file,
// a page per test that fails on console errors, sign-in, and screenshots for the README.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type ConsoleMessage, chromium, type Page } from 'playwright-core'
import { ROOT } from '../helpers/cli.js'

/** Where the README's screenshots are written. */
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots')

/** Starts headless Chromium (with extra command-line switches when given). */
export function launch(executablePath: string, extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  })
}

/** A page plus the console errors and failed requests it saw. */
export interface WatchedPage {
  page: Page
  problems: string[]
  close(): Promise<void>
}

/** Opens a page of the given size that records console errors and page errors. */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, colorScheme: 'light' })
  const page = await context.newPage()
  page.setDefaultTimeout(8000)
  const problems: string[] = []
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`))
  return { page, problems, close: () => context.close() }
}

/** Opens the UI at a page (the hooks list unless told) and signs in with a token; resolves once the app shows. */
export async function signIn(page: Page, base: string, token: string, path = '/hooks'): Promise<void> {
  await page.goto(`${base}/#${path}`)
  await page.getByLabel('Access token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
}

/** Saves a screenshot for the README. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false })
}
