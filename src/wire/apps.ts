/**
 * The MCP Apps extension's wire shapes (`io.modelcontextprotocol/ui`, SEP-1865; the MCP Apps specification
 * 2026-01-26 and its draft) and the checks both sides run on them: the server when a tool or view is defined,
 * the client on what a server sends. Kept here, below both, so the two never disagree.
 */
import { isRecord } from './jsonrpc.js'

/**
 * The extension's identifier in `capabilities.extensions` (apps §Extension Identifier).
 *
 * @example
 * ```ts
 * const appsOn = UI_EXTENSION in ((await client.discover()).capabilities.extensions ?? {})
 * ```
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui'

/**
 * The one view type the extension defines so far (apps §UI Resource Format, Content Requirements).
 *
 * @example
 * ```ts
 * const isView = contents.mimeType === UI_MIME_TYPE
 * ```
 */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app'

/** The scheme every UI resource's URI uses (apps §UI Resource Format). */
export const UI_SCHEME = 'ui://'

/**
 * The tool `_meta` key older hosts read (apps §Resource Discovery: deprecated, "will be removed before GA").
 * Still written beside `_meta.ui.resourceUri`, as the extension's own `registerAppTool` does.
 */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri'

/** Who may call a tool: the model (agent), the app's view, or both (apps §Resource Discovery, Visibility). */
export type UiVisibility = 'model' | 'app'

/**
 * Origins a view may reach; each maps to CSP directives the host builds (apps §UI Resource Format).
 *
 * @example
 * ```ts
 * const csp: UiResourceCsp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example'] }
 * ```
 */
export interface UiResourceCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: string[]
  /** `script-src`, `style-src`, `img-src`, `font-src`, `media-src`. */
  resourceDomains?: string[]
  /** `frame-src`: nested iframes. */
  frameDomains?: string[]
  /** `base-uri`. */
  baseUriDomains?: string[]
}

/**
 * Browser features a view asks for; hosts MAY grant them through the iframe's `allow` attribute.
 *
 * @example
 * ```ts
 * const permissions: UiResourcePermissions = { clipboardWrite: {} }
 * ```
 */
export interface UiResourcePermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

/**
 * A UI resource's `_meta.ui`: sandbox policy and rendering hints (apps §UI Resource Format, `UIResourceMeta`).
 *
 * @example
 * ```ts
 * const meta: UiResourceMeta = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true }
 * ```
 */
export interface UiResourceMeta {
  csp?: UiResourceCsp
  permissions?: UiResourcePermissions
  /** A dedicated sandbox origin; its format is host-specific. */
  domain?: string
  /** Whether the host should draw a border and background around the view. */
  prefersBorder?: boolean
}

/**
 * A tool's `_meta.ui`: its view and who may call it (apps §Resource Discovery, `McpUiToolMeta`).
 *
 * @example
 * ```ts
 * const ui: UiToolMeta = { resourceUri: 'ui://weather/dashboard', visibility: ['model', 'app'] }
 * ```
 */
export interface UiToolMeta {
  resourceUri?: string
  visibility?: UiVisibility[]
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const
const RESOURCE_META_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder']
const TOOL_META_KEYS = ['resourceUri', 'visibility']

/**
 * A CSP host source as the specification's examples write them: `https://api.example.com`,
 * `wss://rt.example.com:8443`, `https://*.example.com`, with an optional path. The host pastes these into a
 * policy, so anything else (a space, `;`, a quote, a keyword like `'unsafe-eval'`, a bare `*`) could widen the
 * policy it builds (apps §Security Implications, Content Security Policy Enforcement: "MUST NOT allow
 * undeclared domains"): refused on both sides.
 */
const CSP_SOURCE =
  /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::(?:\d{1,5}|\*))?(?:\/[A-Za-z0-9._~%!$&()*+=:@/-]*)?$/

const describe = (value: unknown): string => JSON.stringify(value) ?? String(value)

/** Why one CSP source is refused, or undefined when it is a plain host source. */
export function cspSourceProblem(source: unknown): string | undefined {
  if (typeof source !== 'string') return `must be a string, not ${describe(source)}`
  if (!CSP_SOURCE.test(source))
    return `${describe(source)} is not an origin such as "https://api.example.com" or "https://*.example.com"`
  return undefined
}

/**
 * Problems of a `_meta.ui` on a UI resource or its contents. `strict` (the server, at definition) also refuses
 * keys the schema does not have (`additionalProperties: false`), which catches a misspelt `connectDomain`;
 * the client skips them, so a newer server's additions do not break it.
 */
export function uiResourceMetaProblems(meta: unknown, where: string, strict: boolean): string[] {
  if (meta === undefined) return []
  if (!isRecord(meta)) return [`${where} must be an object, not ${describe(meta)}`]
  const problems: string[] = []
  if (strict) unknownKeys(problems, meta, RESOURCE_META_KEYS, where)
  const { csp, permissions, domain, prefersBorder } = meta
  if (csp !== undefined) {
    if (!isRecord(csp)) problems.push(`${where}.csp must be an object, not ${describe(csp)}`)
    else {
      if (strict) unknownKeys(problems, csp, CSP_KEYS, `${where}.csp`)
      for (const key of CSP_KEYS) {
        const list = csp[key]
        if (list === undefined) continue
        if (!Array.isArray(list)) {
          problems.push(`${where}.csp.${key} must be an array of origins, not ${describe(list)}`)
          continue
        }
        list.forEach((source: unknown, index) => {
          const problem = cspSourceProblem(source)
          if (problem) problems.push(`${where}.csp.${key}[${index}] ${problem}`)
        })
      }
    }
  }
  if (permissions !== undefined) {
    if (!isRecord(permissions))
      problems.push(`${where}.permissions must be an object, not ${describe(permissions)}`)
    else {
      if (strict) unknownKeys(problems, permissions, PERMISSION_KEYS, `${where}.permissions`)
      for (const key of PERMISSION_KEYS) {
        const value = permissions[key]
        if (value !== undefined && !(isRecord(value) && Object.keys(value).length === 0))
          problems.push(`${where}.permissions.${key} must be an empty object {}, not ${describe(value)}`)
      }
    }
  }
  if (domain !== undefined && (typeof domain !== 'string' || domain === '' || /[\s;,'"]/.test(domain)))
    problems.push(`${where}.domain must be a host name, not ${describe(domain)}`)
  if (prefersBorder !== undefined && typeof prefersBorder !== 'boolean')
    problems.push(`${where}.prefersBorder must be a boolean, not ${describe(prefersBorder)}`)
  return problems
}

/** Problems of a tool's `_meta.ui` (`McpUiToolMeta`: `csp` and `permissions` belong on the resource). */
export function uiToolMetaProblems(meta: unknown, where: string, strict: boolean): string[] {
  if (meta === undefined) return []
  if (!isRecord(meta)) return [`${where} must be an object, not ${describe(meta)}`]
  const problems: string[] = []
  if (meta.csp !== undefined || meta.permissions !== undefined)
    problems.push(`${where}: csp and permissions belong on the ui:// resource, not on the tool`)
  if (strict) unknownKeys(problems, meta, [...TOOL_META_KEYS, 'csp', 'permissions'], where)
  const { resourceUri, visibility } = meta
  if (resourceUri !== undefined && !isUiUri(resourceUri))
    problems.push(`${where}.resourceUri must be a ui:// URI, not ${describe(resourceUri)}`)
  if (visibility !== undefined) {
    const valid =
      Array.isArray(visibility) && visibility.every((entry) => entry === 'model' || entry === 'app')
    if (!valid)
      problems.push(`${where}.visibility must be an array of "model" and "app", not ${describe(visibility)}`)
    else if (strict && visibility.length === 0)
      problems.push(`${where}.visibility is empty: nobody could call the tool (omit it for ["model", "app"])`)
  }
  return problems
}

/** Whether a value is a `ui://` URI with something after the scheme. */
export function isUiUri(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(UI_SCHEME) && value.length > UI_SCHEME.length
}

/**
 * A tool's view URI: `_meta.ui.resourceUri`, else the deprecated flat `_meta["ui/resourceUri"]`
 * (apps §Resource Discovery). Unchecked: callers check it with `isUiUri`.
 */
export function toolResourceUri(meta: unknown): unknown {
  if (!isRecord(meta)) return undefined
  const ui = meta.ui
  if (isRecord(ui) && ui.resourceUri !== undefined) return ui.resourceUri
  return meta[LEGACY_RESOURCE_URI_KEY]
}

/** A tool's visibility, defaulting to both (apps §Resource Discovery, Visibility: `["model", "app"]`). */
export function toolVisibility(meta: unknown): readonly UiVisibility[] {
  const ui = isRecord(meta) ? meta.ui : undefined
  const visibility = isRecord(ui) ? ui.visibility : undefined
  if (!Array.isArray(visibility)) return ['model', 'app']
  return visibility.filter((entry): entry is UiVisibility => entry === 'model' || entry === 'app')
}

/** Whether a media type is the view type, compared as media types are: case-insensitively, spaces ignored. */
export function isUiMimeType(value: unknown): boolean {
  return typeof value === 'string' && value.replace(/\s+/g, '').toLowerCase() === UI_MIME_TYPE
}

function unknownKeys(
  problems: string[],
  record: Record<string, unknown>,
  known: readonly string[],
  where: string,
): void {
  for (const key of Object.keys(record))
    if (!known.includes(key)) problems.push(`${where} has an unknown key ${describe(key)}`)
}
