/**
 * A tool's MCP Apps view as a host needs it (apps §Resource Discovery, §UI Resource Format): the tool's
 * `ui://` resource read with `resources/read`, checked (type, metadata shape, size), its `_meta.ui` taken from
 * the contents or else from the `resources/list` entry (apps §Metadata Location), and the sandbox it must be
 * rendered in: the Content-Security-Policy and the iframe `allow` list (apps §Security Implications).
 */
import {
  isUiMimeType,
  isUiUri,
  toolResourceUri,
  toolVisibility,
  uiResourceMetaProblems,
  type UiResourceMeta,
  type UiVisibility,
} from '../wire/apps.js'
import { base64ToBytes } from '../wire/base64.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { ResourceContents, Tool } from '../wire/types.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'
import type { ReadResourceResult, ResourceInfo } from './catalogs.js'

/**
 * The bound `appFor` applies unless told otherwise.
 *
 * @example
 * ```ts
 * const view = await client.appFor('dashboard', { maxViewBytes: APP_VIEW_DEFAULTS.maxViewBytes / 4 })
 * ```
 */
export const APP_VIEW_DEFAULTS = {
  /** Largest view accepted, in bytes of HTML (4 MiB: a single-file bundle with its scripts inlined). */
  maxViewBytes: 4 * 1024 * 1024,
} as const

/**
 * Options of `client.appFor`.
 *
 * @example
 * ```ts
 * const view = await client.appFor('weather', { maxViewBytes: 512 * 1024 })
 * ```
 */
export interface AppViewOptions {
  /** Largest view accepted, in bytes of HTML (default 4 MiB); a larger one throws `AppViewError`. */
  readonly maxViewBytes?: number
  readonly signal?: AbortSignal
}

/**
 * A tool's view, ready to render: the HTML, the metadata, and the sandbox a host must apply.
 *
 * @example
 * ```ts
 * const view = await client.appFor('weather')
 * if (view) {
 *   iframe.setAttribute('allow', view.allow)
 *   render(view.html, view.contentSecurityPolicy)
 * }
 * ```
 */
export interface AppView {
  /** The view's `ui://` URI. */
  readonly uri: string
  /** The tool, as listed. */
  readonly tool: Tool
  /** Who may call the tool (default both): hosts keep a tool without `"model"` from the model. */
  readonly visibility: readonly UiVisibility[]
  /** The HTML document. */
  readonly html: string
  /** The `_meta.ui` in force: the contents', else the listing entry's, else none. */
  readonly meta: UiResourceMeta
  /** The policy built from `meta.csp`, or the restrictive default when there is none. */
  readonly contentSecurityPolicy: string
  /** The iframe `allow` attribute for the permissions asked for (`camera; microphone` …); may be empty. */
  readonly allow: string
}

/**
 * A tool's view could not be used: its URI is not `ui://`, the contents are missing, of another type, too
 * large, or carry malformed metadata (a CSP entry that is not a plain origin …).
 *
 * @example
 * ```ts
 * try {
 *   await client.appFor('weather')
 * } catch (error) {
 *   if (error instanceof AppViewError) console.error('not rendering the view:', error.message)
 * }
 * ```
 */
export class AppViewError extends ToolwireError {
  override readonly name = 'AppViewError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_APP_VIEW'
  }
}

/** What `loadAppView` needs from the client. */
export interface AppViewHost {
  readResource(uri: string, options: { signal?: AbortSignal }): Promise<ReadResourceResult>
  listResources(options: { signal?: AbortSignal }): Promise<ResourceInfo[]>
}

/** The restrictive policy when a view declares no CSP (apps §UI Resource Format, Host Behavior). */
const DEFAULT_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "object-src 'none'",
  "connect-src 'none'",
].join('; ')

/**
 * The Content-Security-Policy for a view's metadata (apps §Security Implications, CSP Construction from
 * Metadata). Without `csp`, the restrictive default. With it, the specification's construction, except that
 * an empty `connectDomains` gives `connect-src 'none'` rather than `'self'`: "empty or omitted = no external
 * connections", and a sandboxed view's own origin is the host's, not the server's. Entries are checked
 * origins (`loadAppView` refuses others), so none can add a directive.
 *
 * @example
 * ```ts
 * const policy = viewContentSecurityPolicy({ csp: { connectDomains: ['https://api.example.com'] } })
 * ```
 */
export function viewContentSecurityPolicy(meta: UiResourceMeta): string {
  const csp = meta.csp
  if (csp === undefined) return DEFAULT_CSP
  const list = (sources: string[] | undefined): string => (sources?.length ? ` ${sources.join(' ')}` : '')
  const resources = list(csp.resourceDomains)
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `connect-src${list(csp.connectDomains) || " 'none'"}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    `frame-src${list(csp.frameDomains) || " 'none'"}`,
    "object-src 'none'",
    `base-uri${list(csp.baseUriDomains) || " 'self'"}`,
  ].join('; ')
}

const FEATURES = [
  ['camera', 'camera'],
  ['microphone', 'microphone'],
  ['geolocation', 'geolocation'],
  ['clipboardWrite', 'clipboard-write'],
] as const

/**
 * The iframe `allow` attribute (Permissions Policy) for the permissions a view asks for; hosts MAY grant
 * them (apps §UI Resource Format, `permissions`).
 *
 * @example
 * ```ts
 * viewAllowAttribute({ permissions: { camera: {}, clipboardWrite: {} } }) // 'camera; clipboard-write'
 * ```
 */
export function viewAllowAttribute(meta: UiResourceMeta): string {
  const permissions = meta.permissions ?? {}
  return FEATURES.filter(([key]) => permissions[key] !== undefined)
    .map(([, feature]) => feature)
    .join('; ')
}

/**
 * Who may call a listed tool, from its `_meta.ui.visibility` (default `['model', 'app']`). A host keeps a
 * tool without `'model'` out of the model's tool list (apps §Resource Discovery, Visibility).
 *
 * @example
 * ```ts
 * const { tools } = await client.listTools()
 * const forModel = tools.filter((tool) => appToolVisibility(tool).includes('model'))
 * ```
 */
export function appToolVisibility(tool: Tool): readonly UiVisibility[] {
  return toolVisibility(tool._meta)
}

/** Reads and checks a listed tool's view; undefined when the tool names none. */
export async function loadAppView(
  host: AppViewHost,
  tool: Tool,
  options: AppViewOptions = {},
): Promise<AppView | undefined> {
  const uri = toolResourceUri(tool._meta)
  if (uri === undefined) return undefined
  const where = `tool ${tool.name}`
  if (!isUiUri(uri)) throw new AppViewError(`${where}: its view ${JSON.stringify(uri)} is not a ui:// URI`)
  const maxBytes = options.maxViewBytes ?? APP_VIEW_DEFAULTS.maxViewBytes
  const signal = options.signal ? { signal: options.signal } : {}
  const read = await host.readResource(uri, signal)
  const contents = read.contents.find((item) => item.uri === uri)
  if (!contents) throw new AppViewError(`${where}: resources/read ${uri} returned no contents for that URI`)
  // The type is what tells a view from any other resource (apps §UI Resource Format, Content Requirements).
  if (!isUiMimeType(contents.mimeType))
    throw new AppViewError(
      `${where}: ${uri} has type ${JSON.stringify(contents.mimeType)}, not text/html;profile=mcp-app`,
    )
  const html = htmlOf(contents, maxBytes, `${where}: ${uri}`)
  let meta = uiMetaOf(contents._meta)
  let from = 'contents'
  if (meta === undefined) {
    const listed = (await host.listResources(signal)).find((entry) => entry.uri === uri)
    meta = uiMetaOf((listed as { _meta?: unknown } | undefined)?._meta)
    from = 'resources/list entry'
  }
  const effective: unknown = meta ?? {}
  const problems = uiResourceMetaProblems(effective, `_meta.ui of the ${from}`, false)
  if (problems.length > 0) throw new AppViewError(`${where}: ${uri}: ${problems.join('; ')}`)
  const checked = effective as UiResourceMeta
  return {
    uri,
    tool,
    visibility: toolVisibility(tool._meta),
    html,
    meta: checked,
    contentSecurityPolicy: viewContentSecurityPolicy(checked),
    allow: viewAllowAttribute(checked),
  }
}

const uiMetaOf = (meta: unknown): unknown => (isRecord(meta) ? meta.ui : undefined)

/** The HTML of the contents, text or base64 UTF-8, within the size bound. */
function htmlOf(contents: ResourceContents, maxBytes: number, where: string): string {
  const over = (size: string): AppViewError =>
    new AppViewError(`${where}: the view is ${size}, over the ${maxBytes}-byte limit (maxViewBytes)`)
  if ('text' in contents && typeof contents.text === 'string') {
    const text = contents.text
    // A UTF-16 unit is at least one UTF-8 byte: a text this long is too large without encoding it.
    if (text.length > maxBytes) throw over(`at least ${text.length} bytes`)
    const bytes = new TextEncoder().encode(text).length
    if (bytes > maxBytes) throw over(`${bytes} bytes`)
    return text
  }
  if ('blob' in contents && typeof contents.blob === 'string') {
    const blob = contents.blob
    // Four base64 characters carry three bytes: refuse before decoding what is certainly too large.
    if (Math.floor((blob.length * 3) / 4) - 2 > maxBytes)
      throw over(`about ${Math.floor((blob.length * 3) / 4)} bytes`)
    let bytes: Uint8Array
    try {
      bytes = base64ToBytes(blob)
    } catch {
      throw new AppViewError(`${where}: the blob is not valid base64`)
    }
    if (bytes.length > maxBytes) throw over(`${bytes.length} bytes`)
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw new AppViewError(`${where}: the blob is not UTF-8 text`)
    }
  }
  throw new AppViewError(`${where}: the contents have neither text nor a blob`)
}
