/**
 * A tool's MCP Apps side: the `ui` option of `defineTool` turned into `_meta.ui` (and the deprecated flat key
 * older hosts read), checked when the tool is compiled; and the server-level check that every view a tool
 * names is served (apps §Resource Discovery: "Resource MUST exist on the server").
 */
import {
  isUiUri,
  LEGACY_RESOURCE_URI_KEY,
  toolResourceUri,
  uiToolMetaProblems,
  type UiToolMeta,
  type UiVisibility,
} from '../../wire/apps.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type { MetaObject } from '../../wire/types.js'
import { AppDefinitionError, type AppViewDefinition, isAppView } from './view.js'

/**
 * The `ui` of a tool: its view (a `defineAppView` definition or a `ui://` URI the server serves) and who may
 * call it. `visibility: ['app']` makes a tool only the view calls (a refresh button): hosts keep it from the
 * model (apps §Resource Discovery, Visibility).
 *
 * @example
 * ```ts
 * const refresh = defineTool({ name: 'refresh', ui: { view: dashboard, visibility: ['app'] }, handler: load })
 * ```
 */
export interface ToolUi {
  view?: AppViewDefinition | string
  visibility?: readonly UiVisibility[]
}

/** The tool's `_meta` with its `ui` merged in, checked; undefined when the tool has neither. */
export function toolMetaWithUi(
  ui: AppViewDefinition | ToolUi | undefined,
  meta: MetaObject | undefined,
  label: string,
): MetaObject | undefined {
  if (ui === undefined) {
    if (!isRecord(meta) || (meta.ui === undefined && meta[LEGACY_RESOURCE_URI_KEY] === undefined)) return meta
    checkToolMeta(meta, label)
    return meta
  }
  if (isRecord(meta) && meta.ui !== undefined)
    throw new AppDefinitionError(`${label}: give either ui or _meta.ui, not both`)
  const options: ToolUi = isAppView(ui) ? { view: ui } : ui
  if (!isRecord(options))
    throw new AppDefinitionError(`${label}: ui must be an app view or { view, visibility }`)
  const view = options.view
  const uri = isAppView(view) ? view.uri : view
  const toolUi: UiToolMeta = {}
  if (uri !== undefined) toolUi.resourceUri = uri as string
  if (options.visibility !== undefined) toolUi.visibility = [...(options.visibility as UiVisibility[])]
  const merged: MetaObject = { ...meta, ui: toolUi }
  // Older hosts read only the flat key (apps §Resource Discovery, deprecation notice), as ext-apps'
  // registerAppTool writes it too.
  if (isUiUri(uri)) merged[LEGACY_RESOURCE_URI_KEY] = uri
  checkToolMeta(merged, label)
  return merged
}

function checkToolMeta(meta: MetaObject, label: string): void {
  const problems = uiToolMetaProblems(meta.ui, 'ui', true)
  const flat = meta[LEGACY_RESOURCE_URI_KEY]
  if (flat !== undefined) {
    if (!isUiUri(flat)) problems.push(`_meta["${LEGACY_RESOURCE_URI_KEY}"] must be a ui:// URI`)
    const nested = isRecord(meta.ui) ? meta.ui.resourceUri : undefined
    if (nested !== undefined && nested !== flat)
      problems.push(`_meta["${LEGACY_RESOURCE_URI_KEY}"] and ui.resourceUri name different views`)
  }
  if (problems.length > 0) throw new AppDefinitionError(`${label}: ${problems.join('; ')}`)
}

/** The views tools name by definition (not by URI), for the server to serve beside its own resources. */
export function viewsOfTools(
  tools: readonly { readonly config: { readonly ui?: unknown } }[],
): AppViewDefinition[] {
  const views: AppViewDefinition[] = []
  for (const tool of tools) {
    const ui = tool.config.ui
    const view = isAppView(ui) ? ui : isRecord(ui) && isAppView(ui.view) ? ui.view : undefined
    if (view && !views.includes(view)) views.push(view)
  }
  return views
}

/**
 * Refuses a server whose tools name a `ui://` view it does not serve (as a resource or through a template).
 * Returns whether any tool has a view or a visibility, i.e. whether the server uses the extension.
 */
export function checkToolViews(
  tools: readonly { readonly name: string; readonly wire: { readonly _meta?: MetaObject } }[],
  serves: (uri: string) => boolean,
): boolean {
  let uses = false
  for (const tool of tools) {
    const meta = tool.wire._meta
    if (!isRecord(meta) || (meta.ui === undefined && meta[LEGACY_RESOURCE_URI_KEY] === undefined)) continue
    uses = true
    const uri = toolResourceUri(meta)
    if (isUiUri(uri) && !serves(uri))
      throw new AppDefinitionError(
        `Tool ${tool.name}: its view ${uri} is not a resource of this server (add it to resources, or give the defineAppView definition as ui)`,
      )
  }
  return uses
}
