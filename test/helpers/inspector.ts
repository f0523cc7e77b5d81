/**
 * `toolwire inspect` / `toolwire dev` as a user runs them (the built CLI, `--no-open`), and the system's
 * Chromium driven by playwright-core (never a downloaded browser). The browser tests are skipped where no
 * chromium is installed locally; CI installs it (`.ci/run`).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { CLI, ROOT } from './paths.js'

export const CHROMIUM = '/usr/bin/chromium'
/** Whether this machine can run the browser tests; in CI a missing chromium is a failure, not a skip. */
export const hasChromium = existsSync(CHROMIUM) || process.env.CI === 'true'
export const SCREENSHOTS = join(ROOT, 'test', '.screenshots')

export interface Inspector {
  readonly url: string
  readonly child: ChildProcess
  stderr(): string
  stop(): Promise<void>
}

/** Starts the CLI and resolves with the first line it prints on stdout: the inspector's URL. */
export function startInspector(args: readonly string[], options: { cwd?: string } = {}): Promise<Inspector> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(killer)
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no inspector URL in time: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the CLI exited (${String(code)}) before printing a URL: ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      resolve({ url: line.trim(), child, stderr: () => stderr, stop })
    })
  })
}

export interface BrowserSession {
  readonly context: BrowserContext
  close(): Promise<void>
}

/** Launches the system's Chromium headless, with a fresh profile and no network of its own. */
export async function launchChromium(): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'))
  // playwright takes the profile folder as launchPersistentContext's argument, not as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined)
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** A page of the inspector opened in `browser`, waiting up to `timeoutMs` for what it looks for. */
export interface Opened {
  readonly page: Page
  /** The messages of the browser dialogs the page opened (each dismissed). */
  readonly dialogs: string[]
}

export async function openPage(
  browser: BrowserSession,
  inspector: Inspector,
  timeoutMs = 20_000,
): Promise<Opened> {
  const page = await browser.context.newPage()
  page.setDefaultTimeout(timeoutMs)
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  await page.goto(inspector.url)
  return { page, dialogs }
}

/** `toolwire inspect` on a stdio server run by node: `script` and its arguments. */
export const inspectStdio = (script: string, ...args: string[]): Promise<Inspector> =>
  startInspector(['inspect', '--no-open', '--', process.execPath, script, ...args])

/** An inspector and a page open on it, for the tests of one describe block. */
export interface InspectedPage extends Opened {
  readonly inspector: Inspector
}

/**
 * Registers, in the enclosing describe block, the start of an inspector (`start`) and a page open on it
 * (`browser()` is read then: the browser is launched by the outer block's own set-up), and their closing
 * after the block. The fields read the inspector and page inside tests.
 */
export function inspectedPage(
  browser: () => BrowserSession,
  start: () => Promise<Inspector>,
  timeoutMs?: number,
): InspectedPage {
  let inspector: Inspector | undefined
  let opened: Opened | undefined
  beforeAll(async () => {
    inspector = await start()
    opened = await openPage(browser(), inspector, timeoutMs)
  }, 60_000)
  afterAll(async () => {
    await opened?.page.close()
    await inspector?.stop()
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the inspector block did not start')
    return value
  }
  return {
    get inspector() {
      return ready(inspector)
    },
    get page() {
      return ready(opened).page
    },
    get dialogs() {
      return ready(opened).dialogs
    },
  }
}
