/**
 * The inspector's search box in a real headless Chromium (the system's, through playwright-core) against a
 * real toolwire server with tool search over HTTP: the page lists only `search_tools` and `call_tool`, the box
 * asks the server's `search_tools`, and a tool found that way is shown, validated and called like a listed
 * one. A tool hidden from the caller is never shown. Against a server without search the box only filters.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
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

const NOUNS = ['invoice', 'customer', 'ticket', 'shipment', 'coupon', 'webhook', 'playlist', 'budget']
const VERBS = ['create', 'archive', 'delete', 'export', 'share']
const crud = NOUNS.flatMap((noun) =>
  VERBS.map((verb) =>
    defineTool({
      name: `${noun}_${verb}`,
      description: `${verb} a ${noun} by id`,
      inputSchema: z.object({ id: z.string() }),
      handler: ({ id }) => `${verb}d ${noun} ${id}`,
    }),
  ),
)
const forecast = defineTool({
  name: 'weather_forecast',
  title: 'Weather forecast',
  description: 'Temperature and rain for the coming days in a city',
  inputSchema: z.object({ city: z.string(), days: z.number().int() }),
  outputSchema: z.object({ city: z.string(), days: z.number() }),
  handler: ({ city, days }) => ({ city, days }),
})
const hidden = defineTool({
  name: 'admin_weather_override',
  description: 'Overrides the weather forecast of a city',
  handler: () => 'overridden',
})

const searchBox = (page: Page) => page.getByRole('searchbox')
const found = (page: Page) => page.getByRole('list', { name: 'Found by search_tools' })
const listed = (page: Page) => page.getByRole('navigation', { name: 'Tools' }).getByRole('list').first()

describeBrowser('the inspector on a server with tool search', () => {
  let browser: BrowserSession
  let running: RunningServer
  beforeAll(async () => {
    browser = await launchChromium()
    const server = defineServer({
      name: 'office',
      version: '1.0.0',
      tools: [...crud, forecast, hidden],
      toolSearch: true,
      toolVisibility: (tool) => !tool.name.startsWith('admin_'),
      security: { rateLimit: false },
    })
    running = await serveNode(server, { port: 0, host: '127.0.0.1' })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await running?.close()
  })

  const opened = inspectedPage(
    () => browser,
    () => startInspector(['inspect', '--no-open', running.url]),
  )

  it('lists the two search tools; the box asks the server and shows what it found', async () => {
    const { page } = opened
    await listed(page).getByRole('button', { name: 'call_tool' }).waitFor({ timeout: UI_MS })
    const names = (await listed(page).getByRole('button').allInnerTexts()).map((text) => text.split(' — ')[0])
    expect(names).toEqual(['search_tools', 'call_tool'])
    expect(await page.getByText('Search tools (the server’s search_tools too)').count()).toBe(1)
    await searchBox(page).fill('weather forecast for a city')
    const first = found(page).getByRole('button').first()
    await expect
      .poll(() => first.innerText().catch(() => ''), { timeout: UI_MS })
      .toContain('weather_forecast')
    expect(await first.innerText()).toContain('Weather forecast')
    // Hidden from this caller: never found, however it is asked for.
    expect(await found(page).innerText()).not.toContain('admin_weather_override')
    await screenshot(page, 'inspector-tool-search')
  })

  it('shows, validates and calls a found tool like a listed one, its output checked', async () => {
    const { page } = opened
    await found(page)
      .getByRole('button', { name: /weather_forecast/ })
      .click()
    const detail = page.getByRole('article', { name: 'Tool weather_forecast' })
    await detail.waitFor({ timeout: UI_MS })
    await page.getByLabel('city', { exact: true }).fill('Lisbon')
    await page.getByLabel('days', { exact: true }).fill('')
    await page.getByRole('button', { name: 'Call', exact: true }).click()
    await page.getByRole('alert', { name: 'Invalid arguments' }).waitFor({ timeout: UI_MS })
    await page.getByLabel('days', { exact: true }).fill('2')
    await page.getByRole('button', { name: 'Call', exact: true }).click()
    const result = page.getByRole('region', { name: 'Result' })
    await expect.poll(() => result.innerText(), { timeout: UI_MS }).toContain('Matches the outputSchema')
    expect(await result.innerText()).toContain('Lisbon')
  })

  it('new words replace the results; words that match nothing say so', async () => {
    const { page } = opened
    await searchBox(page).fill('archive coupon')
    await expect
      .poll(
        () =>
          found(page)
            .getByRole('button')
            .first()
            .innerText()
            .catch(() => ''),
        { timeout: UI_MS },
      )
      .toBe('coupon_archive')
    await searchBox(page).fill('zzzz qqqq')
    await page.getByText('The server found no tools.').waitFor({ timeout: UI_MS })
    expect(await found(page).getByRole('button').count()).toBe(0)
  })
})

describeBrowser('the inspector on a server without tool search', () => {
  let browser: BrowserSession
  let running: RunningServer
  beforeAll(async () => {
    browser = await launchChromium()
    const server = defineServer({ name: 'small', version: '1.0.0', tools: [forecast, ...crud.slice(0, 4)] })
    running = await serveNode(server, { port: 0, host: '127.0.0.1' })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await running?.close()
  })

  const opened = inspectedPage(
    () => browser,
    () => startInspector(['inspect', '--no-open', running.url]),
  )

  it('the box only filters the listed tools', async () => {
    const { page } = opened
    await listed(page)
      .getByRole('button', { name: /weather_forecast/ })
      .waitFor({ timeout: UI_MS })
    // Labelled plainly: the box is not wired to a server search when the server lists no search_tools.
    expect(await page.getByText('Search tools', { exact: true }).count()).toBe(1)
    await searchBox(page).fill('rain')
    await expect.poll(() => listed(page).getByRole('button').count(), { timeout: UI_MS }).toBe(1)
    expect(await found(page).count()).toBe(0)
  })
})
