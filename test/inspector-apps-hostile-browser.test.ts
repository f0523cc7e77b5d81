/**
 * Hostile MCP Apps views in `toolwire inspect`, in a real headless Chromium: a view whose CSP lets it connect
 * to every port of 127.0.0.1 still cannot use the inspector's API (no token, an opaque Origin the API refuses,
 * no CORS), and a view that navigates its frame to another document is removed by the sandbox proxy.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  bundleProbeView,
  frameOf,
  inspectProbeServer,
  send,
  showProbe,
  UI_MS,
  viewOf,
} from './helpers/app-views.js'
import {
  hasChromium,
  launchChromium,
  type BrowserSession,
  type Inspector,
  openPage,
} from './helpers/inspector.js'

const describeBrowser = hasChromium ? describe : describe.skip

describeBrowser('toolwire inspect: a view whose CSP lets it connect to every port of 127.0.0.1', () => {
  let browser: BrowserSession
  let probe: Awaited<ReturnType<typeof bundleProbeView>>
  let inspector: Inspector
  let page: Page
  beforeAll(async () => {
    probe = await bundleProbeView()
    browser = await launchChromium()
    inspector = await inspectProbeServer(probe.script)
    page = (await openPage(browser, inspector, UI_MS)).page
  }, 60_000)
  afterAll(async () => {
    await page?.close()
    await inspector?.stop()
    await browser?.close()
    probe?.remove()
  })

  it('still cannot use the inspector API: no token, an opaque Origin, no CORS', async () => {
    const view = await showProbe(page, 'probe_open_view', inspector.url)
    const proxy = new URL((await frameOf(page, 'probe_open_view').getAttribute('src')) ?? '')
    const policy = String((await send(proxy)).headers['content-security-policy'])
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
