/**
 * `toolwire inspect` in a real headless Chromium (the system's, through playwright-core) against a server
 * whose tool, prompt and resource names are built to mislead: a bidi override (`evil\u202Etxt.exe` reads as
 * `evilexe.txt`), full-width look-alikes (`ｒｅａｄ_file`), a path, a space, a control character; titles and
 * descriptions carry bidi and control characters too. The server is a real toolwire server behind a
 * rewriting HTTP proxy on a loopback socket (toolwire's own definitions refuse such names). The page must show
 * every hidden character as a visible escape, mark each name that breaks the naming rule with a badge that
 * says why, and let no raw U+202E reach the page's text.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, definePrompt, defineResource, defineServer, defineTool } from '../src/index.js'
import { hostileProxy, type HostileProxy } from './helpers/hostile-proxy.js'
import {
  hasChromium,
  inspectedPage,
  launchChromium,
  screenshot,
  startInspector,
  type BrowserSession,
} from './helpers/inspector.js'

const UI_MS = 20_000
const describeBrowser = hasChromium ? describe : describe.skip

/** The name each tool is defined with → the name the hostile server lists, and how the page must show it. */
const TOOLS: Record<string, { listed: string; shown: string }> = {
  bidi: { listed: 'evil\u202etxt.exe', shown: 'evil\\u{202E}txt.exe' },
  lookalike: { listed: 'ｒｅａｄ_file', shown: 'ｒｅａｄ_file' },
  path: { listed: '../etc', shown: '../etc' },
  space: { listed: 'read file', shown: 'read file' },
  control: { listed: 'bell\u0007', shown: 'bell\\x07' },
}
const HOSTILE_TITLE = 'safe\u202etxt\u0007'
const HOSTILE_DESCRIPTION = 'Reads **files**\u2066 hidden\u2069 &#x202E;entity'
const PROMPT = { listed: 'sum\u202emarize', shown: 'sum\\u{202E}marize' }
const RESOURCE = { listed: 'ｃｏｎｆｉｇ', normalised: 'config' }

/** Every raw character the page must never show in its text. */
// eslint-disable-next-line no-control-regex -- the test looks for exactly these
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/

describeBrowser('the inspector facing misleading names', () => {
  let browser: BrowserSession
  let proxy: HostileProxy
  beforeAll(async () => {
    browser = await launchChromium()
    const tools = [...Object.keys(TOOLS), 'read_file'].map((name) =>
      defineTool({ name, title: 'TITLE', description: 'DESCRIPTION', handler: () => `ran ${name}` }),
    )
    const inner = createFetchHandler(
      defineServer({
        name: 'names',
        version: '1.0.0',
        tools,
        prompts: [definePrompt({ name: 'summarize', handler: () => 'Summarize.' })],
        resources: [defineResource({ uri: 'memo://config', name: 'config', read: () => 'x=1' })],
        security: { rateLimit: false },
      }),
    )
    proxy = await hostileProxy(inner, {
      outbound: (message, method) => {
        const result = message.result as Record<string, unknown> | undefined
        if (method === 'tools/list' && Array.isArray(result?.tools)) {
          for (const tool of result.tools as { name: string; title: string; description: string }[]) {
            if (tool.name === 'read_file') continue // stays well named and plainly titled
            tool.name = TOOLS[tool.name]?.listed ?? tool.name
            tool.title = HOSTILE_TITLE
            tool.description = HOSTILE_DESCRIPTION
          }
        }
        if (method === 'prompts/list' && Array.isArray(result?.prompts))
          for (const prompt of result.prompts as { name: string }[]) prompt.name = PROMPT.listed
        if (method === 'resources/list' && Array.isArray(result?.resources))
          for (const resource of result.resources as { name: string }[]) resource.name = RESOURCE.listed
        return message
      },
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await proxy?.close()
  })

  const opened = inspectedPage(
    () => browser,
    () => startInspector(['inspect', '--no-open', proxy.url]),
  )

  /** The list entry of a tool, found by the escaped name its name element shows. */
  const entry = (page: Page, nav: string, shown: string): Locator =>
    page
      .getByRole('navigation', { name: nav })
      .getByRole('button')
      .filter({ has: page.locator('.name', { hasText: shown }) })
  const nameText = (locator: Locator): Promise<string> =>
    locator
      .locator('.name')
      .first()
      .evaluate((element) => element.textContent ?? '')
  const badge = (locator: Locator): Locator => locator.getByRole('img', { name: 'unusual name' })

  it('lists each misleading tool name escaped and marked, and a good one unmarked', async () => {
    const { page } = opened
    await entry(page, 'Tools', 'read_file').waitFor({ timeout: UI_MS })
    for (const { listed, shown } of Object.values(TOOLS)) {
      const button = entry(page, 'Tools', shown)
      await button.waitFor({ timeout: UI_MS })
      expect(await nameText(button)).toBe(shown)
      expect(await nameText(button)).not.toMatch(RAW)
      expect(await badge(button).getAttribute('title')).toMatch(/breaks the MCP tool-name rule/)
      if (RAW.test(listed)) expect(shown).not.toBe(listed)
      // The hostile title shows escaped beside the name.
      expect(await button.innerText()).toContain('safe\\u{202E}txt\\x07')
    }
    expect(await badge(entry(page, 'Tools', 'ｒｅａｄ_file')).getAttribute('title')).toMatch(/U\+FF52 \(ｒ\)/)
    expect(await badge(entry(page, 'Tools', 'evil\\u{202E}txt.exe')).getAttribute('title')).toMatch(
      /U\+202E \\u\{202E\}/,
    )
    expect(await badge(entry(page, 'Tools', 'read_file').first()).count()).toBe(0)
  })

  it('shows the selected tool’s name, title and description with their hidden characters escaped', async () => {
    const { page } = opened
    await entry(page, 'Tools', 'evil\\u{202E}txt.exe').click()
    const detail = page.getByRole('article', { name: 'Tool evil\\u{202E}txt.exe' })
    const heading = detail.getByRole('heading', { level: 2 })
    expect(await nameText(heading)).toBe('evil\\u{202E}txt.exe')
    expect(await badge(heading).count()).toBe(1)
    expect(await heading.innerText()).toContain('safe\\u{202E}txt\\x07')
    const description = await detail.locator('.markdown').first().innerText()
    // Markdown still renders; the isolates and the override an HTML entity spells are escaped.
    expect(await detail.locator('.markdown strong').first().innerText()).toBe('files')
    expect(description).toContain('\\u{2066} hidden\\u{2069}')
    expect(description).toContain('\\u{202E}entity')
    expect(await detail.getByLabel('toolwire call command').innerText()).toContain('evil\\u{202E}txt.exe')
    await screenshot(page, 'inspector-names')
  })

  it('marks a misleading prompt name and a look-alike resource name', async () => {
    const { page } = opened
    await page.getByRole('tab', { name: 'Prompts' }).click()
    const prompt = entry(page, 'Prompts', PROMPT.shown)
    expect(await nameText(prompt)).toBe(PROMPT.shown)
    expect(await badge(prompt).getAttribute('title')).toMatch(/prompt name breaks the MCP tool-name rule/)
    await page.getByRole('tab', { name: 'Resources' }).click()
    const resource = page.getByRole('button', { name: /^memo:\/\/config/ })
    expect(await nameText(resource)).toBe(RESOURCE.listed)
    expect(await badge(resource).getAttribute('title')).toContain(`reads as "${RESOURCE.normalised}"`)
    await page.getByRole('tab', { name: 'Tools' }).click()
  })

  it('lets no raw bidi or control character reach the text of the page, the message log included', async () => {
    const { page } = opened
    await page.getByRole('tab', { name: /^Messages/ }).click()
    const log = page.getByRole('region', { name: 'Messages' })
    const list = log.locator('li.msg > details > summary')
    await list
      .filter({ hasText: /← result/ })
      .first()
      .waitFor({ timeout: UI_MS })
    for (const summary of await list.all()) await summary.click()
    await expect.poll(() => log.innerText(), { timeout: UI_MS }).toContain('\\u202e')
    for (const tab of ['Tools', 'Prompts', 'Resources', 'Server', 'Messages']) {
      await page.getByRole('tab', { name: new RegExp(`^${tab}`) }).click()
      const text = await page.evaluate(() => document.body.textContent ?? '')
      expect(text.match(RAW), `raw character on the ${tab} tab`).toBeNull()
    }
  }, 60_000)
})
