/**
 * `toolwire inspect` rendering MCP Apps views in a real headless Chromium (the system's, driven by
 * playwright-core). The probe view (test/fixtures/inspector-apps-view.ts) is written with ext-apps' own view
 * SDK; the demo's dice view speaks the protocol by hand. The view must run through the sandbox proxy on the
 * inspector's second listener (another origin than the page, which holds the token), in an inner iframe with
 * an opaque origin, receive the tool's input and result, call tools through the inspector (only those visible
 * to apps), follow the page's theme, resize its frame (bounded), and fail to reach the inspector's API or
 * open a link by itself (more hostile views: inspector-apps-hostile-browser.test.ts).
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  bundleProbeView,
  frameOf,
  heightOf,
  inspectProbeServer,
  showProbe,
  toolButton,
  UI_MS,
  viewOf,
} from './helpers/app-views.js'
import {
  hasChromium,
  launchChromium,
  screenshot,
  SCREENSHOTS,
  type BrowserSession,
  type Inspector,
  inspectedPage,
  inspectStdio,
} from './helpers/inspector.js'
import { CLI } from './helpers/paths.js'
import { MAX_NOTICE_CHARS, MAX_VIEW_HEIGHT_PX } from '../src/cli/inspector/page/app-limits.js'

const describeBrowser = hasChromium ? describe : describe.skip

describeBrowser('toolwire inspect renders MCP Apps views', () => {
  let browser: BrowserSession
  let probe: Awaited<ReturnType<typeof bundleProbeView>>
  beforeAll(async () => {
    probe = await bundleProbeView()
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    probe?.remove()
  })

  describe('a view written with ext-apps’ App', () => {
    const ui = inspectedPage(
      () => browser,
      () => inspectProbeServer(probe.script),
      UI_MS,
    )
    let inspector: Inspector
    let page: Page
    beforeAll(async () => {
      ;({ inspector, page } = ui)
      await showProbe(page, 'probe_view', inspector.url)
    }, 60_000)

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

    it('tells the view the page’s theme, and when it changes', async () => {
      const view = viewOf(page, 'probe_view')
      await expect.poll(() => view.locator('#theme').innerText(), { timeout: UI_MS }).toBe('light')
      await page.getByRole('button', { name: 'Dark theme' }).click()
      await expect.poll(() => view.locator('#theme').innerText(), { timeout: UI_MS }).toBe('dark')
      await page.getByRole('button', { name: 'Light theme' }).click()
      await expect.poll(() => view.locator('#theme').innerText(), { timeout: UI_MS }).toBe('light')
    })

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

  describe('the demo’s dice view, which speaks the protocol by hand', () => {
    const ui = inspectedPage(
      () => browser,
      () => inspectStdio(CLI, 'demo', '--stdio'),
      UI_MS,
    )

    it('shows the roll and rolls again through the inspector', async () => {
      const { page } = ui
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
