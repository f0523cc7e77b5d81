/**
 * `toolwire inspect` end to end in a real headless Chromium (the system's, driven by playwright-core), as a
 * user sees it: against the demo over Streamable HTTP, the reference server-everything over stdio, a 2025-era
 * server built with the official SDK v1, and a hostile server whose every string carries HTML and script.
 * The page is found by roles and names only (tools are buttons named by the tool, inputs labelled by the
 * argument, the "Call" button, the "Result" region), as users' own end-to-end tests would find it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  hasChromium,
  launchChromium,
  screenshot,
  startInspector,
  type BrowserSession,
  inspectedPage,
  inspectStdio,
} from './helpers/inspector.js'
import { CLI, EVERYTHING_SERVER, ROOT } from './helpers/paths.js'

const UI_MS = 20_000
const describeBrowser = hasChromium ? describe : describe.skip

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A tool's button: its accessible name starts with the tool's name. */
const toolButton = (page: Page, name: string) =>
  page.getByRole('button', { name: new RegExp(`^${escape(name)}( |$)`) })
const result = (page: Page) => page.getByRole('region', { name: 'Result' })

/** `toolwire demo --http 127.0.0.1:0`, resolved with the URL it prints. */
async function startDemo(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'demo', '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the demo printed no URL')), 30_000)
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /on (http\S+)/.exec(line)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  })
  return { url, child }
}

describeBrowser('toolwire inspect in Chromium', () => {
  let browser: BrowserSession
  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)
  afterAll(() => browser?.close())

  describe('the demo over Streamable HTTP', () => {
    let demo: { url: string; child: ChildProcess } | undefined
    afterAll(() => demo?.child.kill('SIGTERM'))
    const opened = inspectedPage(
      () => browser,
      async () => {
        demo = await startDemo()
        return startInspector(['inspect', '--no-open', demo.url])
      },
    )

    it('lists the tools, fills a form, calls, and shows the result with its outputSchema verdict', async () => {
      const { page } = opened
      await toolButton(page, 'arithmetic').click()
      await page.getByLabel('op', { exact: true }).selectOption('add')
      await page.getByLabel('a', { exact: true }).fill('2')
      await page.getByLabel('b', { exact: true }).fill('3')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect
        .poll(() => result(page).innerText(), { timeout: UI_MS })
        .toContain('Matches the outputSchema')
      expect(await result(page).innerText()).toContain('5')
      await screenshot(page, 'inspector-demo-call')
      await page.getByRole('button', { name: 'Dark theme' }).click()
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
      await screenshot(page, 'inspector-demo-call-dark')
      await page.getByRole('button', { name: 'Light theme' }).click()
    })

    it('shows validation errors from toolwire’s validator instead of calling', async () => {
      const { page } = opened
      await toolButton(page, 'arithmetic').click()
      await page.getByLabel('b', { exact: true }).fill('')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await page.getByRole('alert', { name: 'Invalid arguments' }).waitFor()
      expect(await page.getByRole('alert', { name: 'Invalid arguments' }).innerText()).toMatch(/b/)
    })

    it('shows progress live and cancels a running call', async () => {
      const { page } = opened
      await toolButton(page, 'countdown').click()
      await page.getByLabel('seconds', { exact: true }).fill('30')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const progress = page.getByRole('progressbar', { name: 'Progress' })
      await expect
        .poll(async () => Number(await progress.getAttribute('value')), { timeout: UI_MS })
        .toBeGreaterThan(0)
      await screenshot(page, 'inspector-progress')
      await page.getByRole('button', { name: 'Cancel', exact: true }).click()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toMatch(/cancel/i)
    })

    it('answers an elicitation form the server asks for', async () => {
      const { page } = opened
      await toolButton(page, 'add_note').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Elicitation request' })
      await dialog.waitFor()
      expect(await dialog.innerText()).toContain('Complete the note before it is saved')
      await dialog.getByLabel('title', { exact: true }).fill('Groceries')
      await dialog.getByLabel('body', { exact: true }).fill('milk, bread')
      await screenshot(page, 'inspector-elicitation')
      await dialog.getByRole('button', { name: 'Accept' }).click()
      await expect
        .poll(() => result(page).innerText(), { timeout: UI_MS })
        .toContain('Saved note 1: Groceries')
      await dialog.waitFor({ state: 'detached' })
    })

    it('reads a resource and gets a prompt', async () => {
      const { page } = opened
      await page.getByRole('tab', { name: 'Resources' }).click()
      await page.getByRole('button', { name: /^notes:\/\/all/ }).click()
      const contents = page.getByRole('region', { name: 'Resource contents' })
      await expect.poll(() => contents.innerText(), { timeout: UI_MS }).toContain('Groceries')
      await page.getByRole('tab', { name: 'Prompts' }).click()
      await page.getByRole('button', { name: /^summarize_notes/ }).click()
      await page.getByRole('button', { name: 'Get prompt' }).click()
      const messages = page.getByRole('region', { name: 'Prompt messages' })
      await expect.poll(() => messages.innerText(), { timeout: UI_MS }).toContain('Groceries')
    })

    it('logs every JSON-RPC message with its HTTP headers, and keeps a history of calls', async () => {
      const { page } = opened
      await page.getByRole('tab', { name: /^Messages/ }).click()
      const log = page.getByRole('region', { name: 'Messages' })
      await expect.poll(() => log.innerText()).toContain('tools/call')
      await log
        .getByText(/→ tools\/call/)
        .first()
        .click()
      await expect.poll(() => log.innerText()).toMatch(/mcp-protocol-version/i)
      await screenshot(page, 'inspector-messages')
      await page.getByRole('tab', { name: 'History' }).click()
      const history = page.getByRole('region', { name: 'History' })
      expect(await history.innerText()).toContain('arithmetic')
      await page.getByRole('tab', { name: 'Tools' }).click()
    })
  })

  describe('server-everything over stdio', () => {
    const opened = inspectedPage(
      () => browser,
      () => inspectStdio(EVERYTHING_SERVER),
    )

    it('shows an image result as a data: URL of an allowed type', async () => {
      const { page } = opened
      await toolButton(page, 'get-tiny-image').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const image = result(page).getByRole('img').first()
      await image.waitFor()
      expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
      expect(await image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
      await screenshot(page, 'inspector-everything-image')
    })

    it('shows progress notifications of a long-running operation, then its result', async () => {
      const { page } = opened
      await toolButton(page, 'trigger-long-running-operation').click()
      await page.getByLabel('duration', { exact: true }).fill('2')
      await page.getByLabel('steps', { exact: true }).fill('4')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await page.getByRole('progressbar', { name: 'Progress' }).waitFor()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toMatch(/completed/i)
    })

    it('asks before sending the user to a URL (URL elicitation), naming its host', async () => {
      const { page } = opened
      await toolButton(page, 'trigger-url-elicitation').click()
      await page.getByLabel('url', { exact: true }).fill('https://auth.example.com/start?x=1')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Elicitation request' })
      await dialog.waitFor()
      expect(await dialog.innerText()).toContain('https://auth.example.com/start?x=1')
      expect(await dialog.locator('strong').innerText()).toBe('auth.example.com')
      expect(await dialog.getByRole('link').getAttribute('rel')).toBe('noopener noreferrer')
      await dialog.getByRole('button', { name: 'Decline' }).click()
      await dialog.waitFor({ state: 'detached' })
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toMatch(/decline/i)
    })

    it('offers the roots set on the page to the server', async () => {
      const { page } = opened
      await page.getByRole('tab', { name: 'Server' }).click()
      await page.getByLabel('Roots (one URI a line)').fill('file:///tmp/inspector-root')
      await page.getByRole('button', { name: 'Set roots' }).click()
      await page.getByRole('tab', { name: 'Tools' }).click()
      await toolButton(page, 'get-roots-list').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect
        .poll(() => result(page).innerText(), { timeout: UI_MS })
        .toContain('file:///tmp/inspector-root')
    })

    it('runs a tool that needs a task, with its status shown while it runs', async () => {
      const { page } = opened
      await toolButton(page, 'simulate-research-query').click()
      await page.getByLabel('topic', { exact: true }).fill('inspectors')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect
        .poll(() => page.getByRole('status').allInnerTexts(), { timeout: UI_MS })
        .toEqual(expect.arrayContaining([expect.stringMatching(/^Task \S+: working/)]))
      await expect.poll(() => result(page).innerText(), { timeout: 40_000 }).toMatch(/inspectors/i)
    }, 60_000)

    it('cancels a running task', async () => {
      const { page } = opened
      await toolButton(page, 'simulate-research-query').click()
      await page.getByLabel('topic', { exact: true }).fill('cancelled research')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect
        .poll(() => page.getByRole('status').allInnerTexts(), { timeout: UI_MS })
        .toEqual(expect.arrayContaining([expect.stringMatching(/^Task \S+: working/)]))
      await page.getByRole('button', { name: 'Cancel', exact: true }).click()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toMatch(/cancel/i)
      // tasks/cancel went to the server, not only an abandoned poll.
      await page.getByRole('tab', { name: /^Messages/ }).click()
      await expect
        .poll(() => page.getByRole('region', { name: 'Messages' }).innerText())
        .toContain('tasks/cancel')
      await page.getByRole('tab', { name: 'Tools' }).click()
    }, 60_000)
  })

  describe('a 2025-era server built with the official SDK v1', () => {
    const opened = inspectedPage(
      () => browser,
      () => inspectStdio(`${ROOT}/test/fixtures/sdk-v1-server.mjs`),
    )

    it('names the era, answers a sampling request, and refreshes on a live list_changed', async () => {
      const { page } = opened
      await expect.poll(() => page.locator('header').innerText(), { timeout: UI_MS }).toContain('2025 era')
      await toolButton(page, 'ask_model').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Sampling request' })
      await dialog.waitFor()
      expect(await dialog.innerText()).toContain('Capital of France?')
      await dialog.getByLabel('Reply').fill('Paris')
      await dialog.getByRole('button', { name: 'Send reply' }).click()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toContain('The model said Paris')

      expect(await toolButton(page, 'extra_1').count()).toBe(0)
      await toolButton(page, 'grow').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      // notifications/tools/list_changed from the server: the list refreshes without a reload.
      await toolButton(page, 'extra_1').waitFor()
    })
  })

  describe('a tool with nested, array and nullable arguments', () => {
    const opened = inspectedPage(
      () => browser,
      () => inspectStdio(`${ROOT}/test/fixtures/inspector-forms-server.mjs`),
    )

    it('fills a nested object, an array of objects and a null from the generated form, and sends exactly that', async () => {
      const { page } = opened
      await toolButton(page, 'place_order').click()
      await page.getByLabel('name', { exact: true }).fill('Ada')
      await page.getByLabel('vip', { exact: true }).check()
      await page.getByRole('button', { name: 'Add to items' }).click()
      await page.getByRole('button', { name: 'Add to items' }).click()
      const skus = page.getByLabel('sku', { exact: true })
      const quantities = page.getByLabel('qty', { exact: true })
      await skus.nth(0).fill('apple')
      await quantities.nth(0).fill('2')
      await skus.nth(1).fill('pear')
      await quantities.nth(1).fill('1')
      await page.getByRole('button', { name: 'Remove items[1]' }).click()
      await page.getByLabel('note is null').check()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toContain('received')
      const sent = /received (\{.*\})/.exec(await result(page).innerText())?.[1]
      expect(JSON.parse(sent ?? 'null')).toEqual({
        customer: { name: 'Ada', vip: true },
        items: [{ sku: 'apple', qty: 2 }],
        note: null,
        priority: 3,
      })
    })

    it('refuses an item that breaks the schema with toolwire’s validator, before calling', async () => {
      const { page } = opened
      await page.getByRole('button', { name: 'Add to items' }).click()
      await page.getByLabel('sku', { exact: true }).last().fill('plum')
      await page.getByLabel('qty', { exact: true }).last().fill('0')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await page.getByRole('alert', { name: 'Invalid arguments' }).waitFor()
      expect(await page.getByRole('alert', { name: 'Invalid arguments' }).innerText()).toMatch(/qty/)
    })
  })

  describe('a hostile server', () => {
    const opened = inspectedPage(
      () => browser,
      () => inspectStdio(`${ROOT}/test/fixtures/inspector-hostile-server.mjs`),
    )

    it('shows HTML and script from names, descriptions, schemas and results as text, and runs none of it', async () => {
      const { page, dialogs } = opened
      const pwned = (): Promise<unknown> =>
        page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)
      await toolButton(page, 'hostile').click()
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      await expect.poll(() => result(page).innerText(), { timeout: UI_MS }).toContain('bold')
      // The sanitized markdown keeps the bold text but no script, handler, javascript: link or frame.
      expect(
        await result(page).locator('script, iframe, [onerror], [onload], a[href^="javascript"]').count(),
      ).toBe(0)
      // The SVG image (it could carry script) is not shown as an image.
      expect(await result(page).getByRole('img').count()).toBe(0)
      expect(await result(page).innerText()).toContain('is not shown')
      for (const tab of ['Resources', 'Prompts', 'Server', 'Messages']) {
        await page.getByRole('tab', { name: new RegExp(`^${tab}`) }).click()
      }
      await page.getByRole('tab', { name: 'Resources' }).click()
      await page.getByRole('button', { name: /^memo:\/\/hostile/ }).click()
      await expect
        .poll(() => page.getByRole('region', { name: 'Resource contents' }).innerText(), { timeout: UI_MS })
        .toContain('<script>')
      await screenshot(page, 'inspector-hostile')
      expect(await pwned()).toBeNull()
      expect(dialogs).toEqual([])
      expect(await page.locator('script:not([src="/app.js"])').count()).toBe(0)
    }, 60_000)
  })
})
