/**
 * `defineAppView`: an MCP Apps view (a `ui://` resource served as `text/html;profile=mcp-app`, with its CSP
 * and permission metadata) in a few lines, checked when it is defined (apps §UI Resource Format).
 */
import type { RequestContext } from '../../protocol/context.js'
import {
  isUiMimeType,
  isUiUri,
  UI_EXTENSION,
  UI_MIME_TYPE,
  uiResourceMetaProblems,
  type UiResourceCsp,
  type UiResourceMeta,
  type UiResourcePermissions,
} from '../../wire/apps.js'
import { bytesToBase64 } from '../../wire/base64.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type { Icon, MetaObject } from '../../wire/types.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'
import { defineResource, type ReadCacheHints, type ResourceDefinition } from '../resources/define.js'

/** What a view's HTML comes from: a string, bytes (a built bundle read once), or a function run per read. */
export type AppViewSource =
  string | Uint8Array | ((ctx: RequestContext) => string | Uint8Array | Promise<string | Uint8Array>)

/**
 * What `defineAppView` takes: the `ui://` URI, a name, the HTML, and the sandbox the view needs.
 *
 * @example
 * ```ts
 * const config: AppViewConfig = {
 *   uri: 'ui://weather/dashboard',
 *   name: 'weather_dashboard',
 *   html: '<!doctype html><html><body>…</body></html>',
 *   csp: { connectDomains: ['https://api.example.com'] },
 *   prefersBorder: true,
 * }
 * ```
 */
export interface AppViewConfig {
  /** A `ui://` URI (apps §UI Resource Format: "URI MUST start with `ui://`"). */
  uri: string
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  /** The view: a complete HTML5 document, as text or bytes, or a function returning one per read. */
  html: AppViewSource
  /** Origins the view may reach; omitted means none (the host's restrictive default). */
  csp?: UiResourceCsp
  /** Browser features the view asks for (camera, microphone, geolocation, clipboardWrite). */
  permissions?: UiResourcePermissions
  /** A dedicated sandbox origin; its format is host-specific. */
  domain?: string
  /** Whether the host should draw a border and background around the view. */
  prefersBorder?: boolean
  /** More `_meta` for the listing entry and the contents (`ui` is made from the fields above). */
  _meta?: MetaObject
  /** Cache hints for `resources/read` of the view (default: the server's). */
  cache?: ReadCacheHints
}

const APP_VIEW = Symbol.for('toolwire.appView')

/**
 * A view made by `defineAppView`: a resource definition (it goes in `resources`, or is added by the tools that
 * name it) that tools can point at with `ui`.
 *
 * @example
 * ```ts
 * const view: AppViewDefinition = defineAppView({ uri: 'ui://demo/view', name: 'view', html })
 * const tool = defineTool({ name: 'show', ui: view, handler: () => 'shown' })
 * ```
 */
export interface AppViewDefinition extends ResourceDefinition {
  readonly [APP_VIEW]: true
  /** The view's `ui://` URI. */
  readonly uri: string
}

/**
 * An invalid MCP Apps definition, thrown by `defineAppView`, `defineTool` (its `ui` or `_meta.ui`) and
 * `defineServer` (a tool whose `ui://` view the server does not serve).
 *
 * @example
 * ```ts
 * try {
 *   defineAppView({ uri: 'https://example.com/view', name: 'view', html: '<!doctype html>' })
 * } catch (error) {
 *   if (error instanceof AppDefinitionError) console.error(error.message) // uri must be a ui:// URI
 * }
 * ```
 */
export class AppDefinitionError extends ToolwireError {
  override readonly name = 'AppDefinitionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_APP_DEFINITION'
  }
}

/**
 * Defines an MCP Apps view: a `ui://` resource served with the `text/html;profile=mcp-app` type and its
 * `_meta.ui` (CSP, permissions, domain, border) on both the `resources/list` entry and the `resources/read`
 * contents, where hosts look for it (apps §UI Resource Format, Metadata Location). Checked here: the URI is
 * `ui://`, the metadata has the specification's shape, every CSP entry is a plain origin.
 *
 * @example
 * ```ts
 * const dashboard = defineAppView({
 *   uri: 'ui://weather/dashboard',
 *   name: 'weather_dashboard',
 *   html: () => readFile(new URL('./dist/dashboard.html', import.meta.url), 'utf8'),
 *   csp: { connectDomains: ['https://api.example.com'] },
 * })
 * ```
 */
export function defineAppView(config: AppViewConfig): AppViewDefinition {
  const label = `App view ${JSON.stringify(config.uri)}`
  if (!isUiUri(config.uri)) throw new AppDefinitionError(`${label}: uri must be a ui:// URI`)
  const source = config.html
  const staticText = typeof source === 'string'
  if (!(staticText || source instanceof Uint8Array || typeof source === 'function'))
    throw new AppDefinitionError(`${label}: html must be a string, bytes, or a function returning one`)
  if ((staticText || source instanceof Uint8Array) && source.length === 0)
    throw new AppDefinitionError(`${label}: html is empty`)
  const ui: UiResourceMeta = {}
  if (config.csp !== undefined) ui.csp = config.csp
  if (config.permissions !== undefined) ui.permissions = config.permissions
  if (config.domain !== undefined) ui.domain = config.domain
  if (config.prefersBorder !== undefined) ui.prefersBorder = config.prefersBorder
  const problems = uiResourceMetaProblems(ui, 'ui', true)
  if (config._meta !== undefined && !isRecord(config._meta)) problems.push('_meta must be an object')
  if (isRecord(config._meta) && config._meta.ui !== undefined)
    problems.push('_meta.ui is made from csp, permissions, domain and prefersBorder: set those instead')
  if (problems.length > 0) throw new AppDefinitionError(`${label}: ${problems.join('; ')}`)
  // One object, shared by the listing entry and every read: hosts prefer the contents' copy and fall back
  // to the listing's (apps §Metadata Location), so both say the same.
  const meta: MetaObject = { ...config._meta, ui }
  const encoded = source instanceof Uint8Array ? bytesToBase64(source) : undefined
  const contents = (body: string | Uint8Array): Record<string, unknown> =>
    typeof body === 'string'
      ? { text: body, _meta: meta }
      : { blob: body === source ? encoded : bytesToBase64(body), _meta: meta }
  const read =
    typeof source === 'function'
      ? async (ctx: RequestContext) => contents(await source(ctx))
      : () => contents(source)
  const resource = defineResource({
    uri: config.uri,
    name: config.name,
    mimeType: UI_MIME_TYPE,
    _meta: meta,
    read,
    ...(config.title !== undefined && { title: config.title }),
    ...(config.description !== undefined && { description: config.description }),
    ...(config.icons !== undefined && { icons: config.icons }),
    ...(config.cache !== undefined && { cache: config.cache }),
  })
  return Object.assign(resource, { [APP_VIEW]: true as const, uri: config.uri })
}

/** Whether a value was made by `defineAppView`. */
export function isAppView(value: unknown): value is AppViewDefinition {
  return typeof value === 'object' && value !== null && APP_VIEW in value
}

/**
 * Whether the client that sent this request renders MCP Apps views: it declared `io.modelcontextprotocol/ui`
 * with `text/html;profile=mcp-app` among its `mimeTypes` (apps §Client<>Server Capability Negotiation). A tool
 * handler may use it to shape its text for hosts that show no view (apps §Graceful Degradation).
 *
 * @example
 * ```ts
 * const weather = defineTool({
 *   name: 'weather',
 *   ui: dashboard,
 *   handler: (_args, ctx) => (clientSupportsApps(ctx) ? 'Shown in the dashboard.' : 'Sunny, 22 °C, wind 3 m/s.'),
 * })
 * ```
 */
export function clientSupportsApps(ctx: RequestContext): boolean {
  const settings = ctx.meta.clientCapabilities.extensions?.[UI_EXTENSION]
  const types = isRecord(settings) ? settings.mimeTypes : undefined
  return Array.isArray(types) && types.some(isUiMimeType)
}
