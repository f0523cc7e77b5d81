/**
 * `toolwire inspect` rendering MCP Apps views in a real headless Chromium (the system's, driven by
 * playwright-core). The probe view (test/fixtures/inspector-apps-view.ts) is written with ext-apps' own view
 * SDK; the demo's dice view speaks the protocol by hand. The view must run through the sandbox proxy on the
 * inspector's second listener (another origin than the page, which holds the token), in an inner iframe with
 * an opaque origin, receive the tool's input and result, call tools through the inspector (only those visible
 * to apps), resize its frame (bounded), and fail to reach the inspector's API or open a link by itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  hasChromium,
  launchChromium,
  screenshot,
  SCREENSHOTS,
  startInspector,
  type BrowserSession,
  type Inspector,
} from './helpers/inspector.js'
import { CLI, ROOT } from './helpers/paths.js'
import { MAX_NOTICE_CHARS, MAX_VIEW_HEIGHT_PX } from '../src/cli/inspector/page/app-limits.js'

const UI_MS = 20_000
const describeBrowser = hasChromium ? describe : describe.skip

const toolButton = (page: Page, name: string) =>
  page.getByRole('button', { name: new RegExp(`^${name}( |$)`) })
const frameOf = (page: Page, tool: string) => page.locator(`iframe[title="View of ${tool}"]`)
/** The view itself: the inner iframe of the sandbox proxy. */
const viewOf = (page: Page, tool: string): FrameLocator =>
  page.frameLocator(`iframe[title="View of ${tool}"]`).frameLocator('iframe')
const heightOf = (page: Page, tool: string): Promise<number> =>
  frameOf(page, tool).evaluate((element) => element.getBoundingClientRect().height)

/** A raw request, so Host and Origin can be whatever a hostile page would send. */
function send(
  url: URL,
  options: { host?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? url.host, ...options.headers },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}
const get = (url: URL, host = url.host) => send(url, { host })

/** Calls a probe tool from the page and waits for its view to be connected. */
async function showProbe(page: Page, tool: string, inspectorUrl: string): Promise<FrameLocator> {
  await toolButton(page, tool).click()
  await page.getByLabel('inspector', { exact: true }).fill(new URL(inspectorUrl).origin)
  await page.getByRole('button', { name: 'Call', exact: true }).click()
  const view = viewOf(page, tool)
  await view.locator('#status').filter({ hasText: 'connected' }).waitFor()
  return view
}

describeBrowser('toolwire inspect renders MCP Apps views', () => {
  let browser: BrowserSession
  let folder: string
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toolwire-apps-view-'))
    const bundled = await build({
      entryPoints: [join(ROOT, 'test/fixtures/inspector-apps-view.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      logLevel: 'warning',
    })
    writeFileSync(join(folder, 'view.js'), bundled.outputFiles[0]?.text ?? '')
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    if (folder) rmSync(folder, { recursive: true, force: true })
  })

  describe('a view written with ext-apps’ App', () => {
    let inspector: Inspector
    let page: Page
    beforeAll(async () => {
      inspector = await startInspector([
        'inspect',
        '--no-open',
        '--',
        process.execPath,
        join(ROOT, 'test/fixtures/inspector-apps-server.mjs'),
        join(folder, 'view.js'),
      ])
      page = await browser.context.newPage()
      page.setDefaultTimeout(UI_MS)
      await page.goto(inspector.url)
      await showProbe(page, 'probe_view', inspector.url)
    }, 60_000)
    afterAll(async () => {
      await page?.close()
      await inspector?.stop()
    })

    it('renders the view under the result, on another origin, with the tool’s input and result', async () => {
      const view = viewOf(page, 'probe_view')
      await expect
        .poll(() => view.locator('#result').innerText(), { timeout: UI_MS })
        .toContain('hello from probe_view')
      expect(JSON.parse(await view.locator('#input').innerText())).toEqual({
        inspector: new URL(inspector.url).origin,
      })
      await screenshot(page, 'inspector-app-view')
      const pageOrigin = new URL(inspector.url).origin
      const proxy = new URL((await frameOf(page, 'probe_view').getAttribute('src')) ?? '')
      expect(proxy.origin).not.toBe(pageOrigin)
      expect(proxy.hostname).toBe('127.0.0.1')
      // The page cannot script the proxy, and the view's own origin is opaque.
      expect(
        await frameOf(page, 'probe_view').evaluate((f) => (f as HTMLIFrameElement).contentDocument),
      ).toBe(null)
      expect(await view.locator('#origin').innerText()).toBe('null')
    })

    it('lets the view call a tool through the inspector and shows its answer', async () => {
      const view = viewOf(page, 'probe_view')
      await view.getByRole('button', { name: 'Call echo' }).click()
      await expect
        .poll(() => view.locator('#echo').innerText(), { timeout: UI_MS })
        .toBe('answer: echo: from the view')
    })

    it('resizes the frame when the view grows, up to the bound', async () => {
      const view = viewOf(page, 'probe_view')
      const before = await heightOf(page, 'probe_view')
      await view.getByRole('button', { name: 'Grow', exact: true }).click()
      await expect.poll(() => heightOf(page, 'probe_view'), { timeout: UI_MS }).toBeGreaterThan(before + 400)
      await view.getByRole('button', { name: 'Grow huge' }).click()
      await expect.poll(() => heightOf(page, 'probe_view'), { timeout: UI_MS }).toBe(MAX_VIEW_HEIGHT_PX)
    }, 60_000)

    it('answers a tool the server does not have, and a model-only tool, with the same error', async () => {
      const view = viewOf(page, 'probe_view')
      await view.getByRole('button', { name: 'Call a missing tool' }).click()
      await view.getByRole('button', { name: 'Call a model-only tool' }).click()
      await expect
        .poll(() => view.locator('#missing').innerText(), { timeout: UI_MS })
        .toMatch(/^error: .*not available/)
      await expect
        .poll(() => view.locator('#model-only').innerText(), { timeout: UI_MS })
        .toMatch(/^error: .*not available/)
    })

    it('keeps the view from the inspector API: the fetch is blocked', async () => {
      const view = viewOf(page, 'probe_view')
      await view.getByRole('button', { name: 'Fetch the inspector API' }).click()
      await expect.poll(() => view.locator('#fetch').innerText(), { timeout: UI_MS }).toMatch(/^blocked: /)
    })

    it('refuses a javascript: link and offers an https link for the user to click, opening nothing', async () => {
      const view = viewOf(page, 'probe_view')
      const pages = browser.context.pages().length
      await view.getByRole('button', { name: 'Open links' }).click()
      await expect.poll(() => view.locator('#links').innerText(), { timeout: UI_MS }).toContain('web')
      const links = JSON.parse(await view.locator('#links').innerText()) as Record<string, unknown>
      expect(links.script).toMatchObject({ isError: true })
      expect(links.web).not.toMatchObject({ isError: true })
      const offered = page.getByRole('link', { name: 'https://example.com/docs' })
      expect(await offered.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await offered.getAttribute('target')).toBe('_blank')
      expect(await page.getByRole('link', { name: /javascript:/ }).count()).toBe(0)
      expect(browser.context.pages().length).toBe(pages)
    })

    it('refuses a message for the model, and shows it clipped', async () => {
      const view = viewOf(page, 'probe_view')
      await view.getByRole('button', { name: 'Send a long message' }).click()
      await expect
        .poll(() => view.locator('#message').innerText(), { timeout: UI_MS })
        .toContain('"isError":true')
      const notice = page.getByRole('region', { name: 'App view' }).getByRole('status').filter({
        hasText: 'message for the model',
      })
      const text = await notice.innerText()
      expect(text).toContain(`${'m'.repeat(MAX_NOTICE_CHARS)}…`)
      expect(text).not.toContain('m'.repeat(MAX_NOTICE_CHARS + 1))
    })
  })

  describe('a view whose CSP lets it connect to every port of 127.0.0.1', () => {
    let inspector: Inspector
    let page: Page
    beforeAll(async () => {
      inspector = await startInspector([
        'inspect',
        '--no-open',
        '--',
        process.execPath,
        join(ROOT, 'test/fixtures/inspector-apps-server.mjs'),
        join(folder, 'view.js'),
      ])
      page = await browser.context.newPage()
      page.setDefaultTimeout(UI_MS)
      await page.goto(inspector.url)
    }, 60_000)
    afterAll(async () => {
      await page?.close()
      await inspector?.stop()
    })

    it('still cannot use the inspector API: no token, an opaque Origin, no CORS', async () => {
      const view = await showProbe(page, 'probe_open_view', inspector.url)
      const proxy = new URL((await frameOf(page, 'probe_open_view').getAttribute('src')) ?? '')
      const policy = String((await get(proxy)).headers['content-security-policy'])
      expect(policy).toContain('connect-src http://127.0.0.1:*')
      await view.getByRole('button', { name: 'Fetch the inspector API' }).click()
      await expect.poll(() => view.locator('#fetch').innerText(), { timeout: UI_MS }).toMatch(/^blocked: /)
      // Even a view that had guessed the token: its Origin is "null", which the API refuses.
      const api = new URL('/api/state', inspector.url)
      const token = new URL(inspector.url).searchParams.get('token') ?? ''
      const answer = await send(api, {
        method: 'POST',
        headers: { origin: 'null', 'content-type': 'application/json', 'x-inspector-token': token },
        body: '{}',
      })
      expect(answer.status).toBe(403)
    })

    it('removes a view that navigates its frame to another document', async () => {
      const view = viewOf(page, 'probe_open_view')
      await view.getByRole('button', { name: 'Navigate away' }).click()
      const proxy = page.frameLocator('iframe[title="View of probe_open_view"]')
      await expect.poll(() => proxy.locator('iframe').count(), { timeout: UI_MS }).toBe(0)
    }, 60_000)
  })

  describe('the demo’s dice view, which speaks the protocol by hand', () => {
    let inspector: Inspector
    let page: Page
    beforeAll(async () => {
      inspector = await startInspector([
        'inspect',
        '--no-open',
        '--',
        process.execPath,
        CLI,
        'demo',
        '--stdio',
      ])
      page = await browser.context.newPage()
      page.setDefaultTimeout(UI_MS)
      await page.goto(inspector.url)
    }, 60_000)
    afterAll(async () => {
      await page?.close()
      await inspector?.stop()
    })

    it('shows the roll and rolls again through the inspector', async () => {
      await toolButton(page, 'roll_dice').click()
      await page.getByLabel('count', { exact: true }).fill('3')
      await page.getByRole('button', { name: 'Call', exact: true }).click()
      const view = viewOf(page, 'roll_dice')
      await expect
        .poll(() => view.locator('#status').innerText(), { timeout: UI_MS })
        .toMatch(/^3 × d6, total/)
      expect(await view.locator('.die').count()).toBe(3)
      // The frames are other processes (other origins): shot as the viewport shows them, not a full-page
      // resize, from the result to the view (docs/public/inspector-app-view.png).
      await frameOf(page, 'roll_dice').scrollIntoViewIfNeeded()
      const from = await page.getByRole('region', { name: 'Result' }).boundingBox()
      const to = await frameOf(page, 'roll_dice').boundingBox()
      if (from && to) {
        const clip = {
          x: from.x - 8,
          y: from.y - 8,
          width: from.width + 16,
          height: to.y + to.height - from.y + 16,
        }
        await page.screenshot({ path: join(SCREENSHOTS, 'inspector-app-view-dice.png'), clip })
      }
      await view.getByRole('button', { name: 'Roll again' }).click()
      await page.getByRole('tab', { name: /^Messages/ }).click()
      await expect
        .poll(
          () =>
            page
              .getByRole('region', { name: 'Messages' })
              .getByText(/→ tools\/call/)
              .count(),
          { timeout: UI_MS },
        )
        .toBeGreaterThanOrEqual(2)
    })
  })
})
