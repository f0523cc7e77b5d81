/**
 * `toolwire dev <module>`: the module is served, the inspector page shows it, a save reloads it and the page
 * refreshes its lists by itself; a module that fails to load shows its error on the page (and in the
 * terminal), and the next good save recovers. Real CLI, real files, real Chromium.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import {
  hasChromium,
  launchChromium,
  screenshot,
  startInspector,
  type BrowserSession,
  type Inspector,
  openPage,
} from './helpers/inspector.js'
import { ROOT } from './helpers/paths.js'

const UI_MS = 30_000
const TOOLWIRE = pathToFileURL(join(ROOT, 'dist', 'index.js')).href

/** A server module with one tool of the given name. */
const moduleWith = (
  tool: string,
): string => `import { defineServer, defineTool } from ${JSON.stringify(TOOLWIRE)}
export default defineServer({
  name: 'dev-loop',
  version: '1.0.0',
  tools: [defineTool({ name: ${JSON.stringify(tool)}, description: 'says which version runs', handler: () => ${JSON.stringify(`${tool} runs`)} })],
})
`

const toolButton = (page: Page, name: string) =>
  page.getByRole('button', { name: new RegExp(`^${name}( |$)`) })

;(hasChromium ? describe : describe.skip)('toolwire dev', () => {
  let dir: string
  let file: string
  let inspector: Inspector
  let browser: BrowserSession
  let page: Page

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolwire-dev-'))
    file = join(dir, 'server.mjs')
    writeFileSync(file, moduleWith('first'))
    inspector = await startInspector(['dev', file, '--no-open'])
    browser = await launchChromium()
    page = (await openPage(browser, inspector, UI_MS)).page
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await inspector?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves the module, reloads it on a save, shows a broken module’s error and recovers', async () => {
    await toolButton(page, 'first').click()
    await page.getByRole('button', { name: 'Call', exact: true }).click()
    await expect
      .poll(() => page.getByRole('region', { name: 'Result' }).innerText(), { timeout: UI_MS })
      .toContain('first runs')

    writeFileSync(file, moduleWith('second'))
    await toolButton(page, 'second').waitFor()
    expect(await toolButton(page, 'first').count()).toBe(0)

    writeFileSync(file, `${moduleWith('third')}\nexport const broken = ;\n`)
    const problem = page.getByRole('alert', { name: 'Server problem' })
    await expect
      .poll(() => problem.innerText().catch(() => ''), { timeout: UI_MS })
      .toContain('Unexpected token')
    expect(inspector.stderr()).toContain('Unexpected token')
    await screenshot(page, 'inspector-dev-broken')

    writeFileSync(file, moduleWith('third'))
    await toolButton(page, 'third').waitFor()
    await problem.waitFor({ state: 'detached' })
    await toolButton(page, 'third').click()
    await page.getByRole('button', { name: 'Call', exact: true }).click()
    await expect
      .poll(() => page.getByRole('region', { name: 'Result' }).innerText(), { timeout: UI_MS })
      .toContain('third runs')
  }, 120_000)
})

describe('toolwire dev with a TypeScript module', () => {
  let dir: string
  let inspector: Inspector

  /** The local API the page uses, with the token of the printed URL. */
  async function api(operation: string): Promise<Record<string, unknown>> {
    const url = new URL(inspector.url)
    const response = await fetch(new URL(`/api/${operation}`, url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-inspector-token': url.searchParams.get('token') ?? '',
      },
      body: '{}',
    })
    return (await response.json()) as Record<string, unknown>
  }
  const toolNames = async (): Promise<string[]> => {
    const state = await api('state')
    if (state.connected !== true) return []
    const { tools } = await api('lists')
    return Array.isArray(tools) ? tools.map((tool: { name: string }) => tool.name) : []
  }
  const typed = (tool: string): string =>
    `${moduleWith(tool)}\nexport const greeting: string = ${JSON.stringify(tool)} satisfies string\n`

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolwire-dev-ts-'))
    writeFileSync(join(dir, 'server.ts'), typed('typed_first'))
    inspector = await startInspector(['dev', join(dir, 'server.ts'), '--no-open'])
  }, 60_000)
  afterAll(async () => {
    await inspector?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs the module through tsx, reloads it on a save and tells every connected client', async () => {
    await expect.poll(toolNames, { timeout: UI_MS }).toEqual(['typed_first'])
    // Another client of the served address, listening for changes as any MCP client may.
    const served = /is served on (http\S+)/.exec(inspector.stderr())?.[1]
    expect(served).toBeDefined()
    const client = connect({ url: served! }, { warn: () => {} })
    const changes: string[] = []
    const subscription = await client.subscribe(
      { toolsListChanged: true },
      { onNotification: (notification) => changes.push(notification.method) },
    )
    try {
      writeFileSync(join(dir, 'server.ts'), typed('typed_second'))
      await expect.poll(toolNames, { timeout: UI_MS }).toEqual(['typed_second'])
      await expect.poll(() => changes, { timeout: UI_MS }).toContain('notifications/tools/list_changed')
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['typed_second'])
    } finally {
      await subscription.close()
      await client.close()
    }
  }, 90_000)
})
