/**
 * Helpers of the inspector's MCP Apps browser tests: the probe view (test/fixtures/inspector-apps-view.ts,
 * written with ext-apps' `App`) bundled by esbuild, the inspector started on the probe server, and the view
 * found in the page: the iframe titled "View of <tool>" is the sandbox proxy, the view is its inner iframe.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { FrameLocator, Locator, Page } from 'playwright-core'
import { startInspector, type Inspector } from './inspector.js'
import { ROOT } from './paths.js'
import { type RawAnswer, rawRequest } from './raw-request.js'

export const UI_MS = 20_000

export const toolButton = (page: Page, name: string): Locator =>
  page.getByRole('button', { name: new RegExp(`^${name}( |$)`) })
/** The sandbox proxy's iframe, on the page. */
export const frameOf = (page: Page, tool: string): Locator => page.locator(`iframe[title="View of ${tool}"]`)
/** The view itself: the inner iframe of the sandbox proxy. */
export const viewOf = (page: Page, tool: string): FrameLocator =>
  page.frameLocator(`iframe[title="View of ${tool}"]`).frameLocator('iframe')
export const heightOf = (page: Page, tool: string): Promise<number> =>
  frameOf(page, tool).evaluate((element) => element.getBoundingClientRect().height)

/** The probe view's script, bundled into a temporary folder; `remove` deletes it. */
export async function bundleProbeView(): Promise<{ script: string; remove: () => void }> {
  const folder = mkdtempSync(join(tmpdir(), 'toolwire-apps-view-'))
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
  const script = join(folder, 'view.js')
  writeFileSync(script, bundled.outputFiles[0]?.text ?? '')
  return { script, remove: () => rmSync(folder, { recursive: true, force: true }) }
}

/** `toolwire inspect` on test/fixtures/inspector-apps-server.mjs with the bundled view script. */
export const inspectProbeServer = (script: string): Promise<Inspector> =>
  startInspector([
    'inspect',
    '--no-open',
    '--',
    process.execPath,
    join(ROOT, 'test/fixtures/inspector-apps-server.mjs'),
    script,
  ])

/** Calls a probe tool from the page and waits for its view to be connected. */
export async function showProbe(page: Page, tool: string, inspectorUrl: string): Promise<FrameLocator> {
  await toolButton(page, tool).click()
  await page.getByLabel('inspector', { exact: true }).fill(new URL(inspectorUrl).origin)
  await page.getByRole('button', { name: 'Call', exact: true }).click()
  const view = viewOf(page, tool)
  await view.locator('#status').filter({ hasText: 'connected' }).waitFor()
  return view
}

/** A raw request, so Host and Origin can be whatever a hostile page would send (`host` replaces the URL's). */
export function send(
  url: URL,
  options: { host?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const { host, ...rest } = options
  return rawRequest(url, { ...rest, headers: { ...(host && { host }), ...options.headers } })
}
