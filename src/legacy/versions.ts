/**
 * The 2025-era revisions served beside the current one, and how their answers differ: version
 * negotiation at `initialize` and result shapes without the fields those revisions do not define.
 */
import { UI_EXTENSION } from '../wire/apps.js'
import { isRecord } from '../wire/jsonrpc.js'
import { META_PROTOCOL_VERSION, META_SERVER_INFO } from '../wire/meta.js'
import type { ServerCapabilities } from '../wire/types.js'

/** Initialization-based revisions this server speaks, newest first. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26']

/**
 * The version a legacy client gets: its own when we speak it, else our newest, which the client may refuse
 * (2025-11-25 basic/lifecycle §Version Negotiation).
 */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && LEGACY_VERSIONS.includes(requested)
    ? requested
    : (LEGACY_VERSIONS[0] as string)
}

/** True when a request carries the current revision's `_meta` envelope (then it is never legacy). */
export function hasModernMeta(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta
  return isRecord(meta) && meta[META_PROTOCOL_VERSION] !== undefined
}

/** The capabilities object of an `initialize` result: the 2025-era members only. */
export function legacyCapabilities(capabilities: ServerCapabilities): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of ['experimental', 'logging', 'completions', 'prompts', 'resources', 'tools'] as const) {
    if (capabilities[key] !== undefined) out[key] = capabilities[key]
  }
  // MCP Apps is negotiated in `initialize` by 2025-era hosts too (apps §Client<>Server Capability
  // Negotiation); the tasks extension is not (2025-11-25 has its own `tasks` capability).
  const ui = capabilities.extensions?.[UI_EXTENSION]
  if (ui !== undefined) out.extensions = { [UI_EXTENSION]: ui }
  return out
}

/**
 * A result in a 2025-era shape: no `resultType`, `ttlMs` or `cacheScope` (2026-07-28 additions) and no
 * `serverInfo` in `_meta` (those revisions send it once, in the `initialize` result).
 */
export function legacyResult(result: Record<string, unknown>): Record<string, unknown> {
  // Copied key by key, not with a rest pattern and `delete` (which leaves the copy in V8's slower dictionary
  // mode): about a sixth less per 2025-era answer, serialising included (measured in isolation).
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(result)) {
    if (key === 'resultType' || key === 'ttlMs' || key === 'cacheScope') continue
    if (key === '_meta') {
      const meta = withoutServerInfo(result._meta)
      if (meta !== undefined) out._meta = meta
    } else out[key] = result[key]
  }
  return out
}

/**
 * The result shaper for one method of a 2025-era session: `legacyResult`, and for tools the shapes the
 * 2025-11-25 schema allows (a `Tool.outputSchema` must have `type: "object"`, `structuredContent` must be an
 * object). The official SDK v1 client checks `tools/list` against that schema and refuses the whole list
 * for one tool outside it.
 */
export function legacyShape(method: string): (result: Record<string, unknown>) => Record<string, unknown> {
  if (method === 'tools/list') return legacyToolList
  if (method === 'tools/call') return legacyToolCall
  return legacyResult
}

/**
 * `tools/list` for a 2025-era peer: a tool whose `outputSchema` is not an object schema (an array, a
 * string, a bare `anyOf`) is listed without it, rather than with a schema wrapped in an object: a wrapper
 * would be a contract the tool's author never wrote, and its calls would carry a different value to these
 * peers than to current ones. Without the schema such a tool's calls carry the value as JSON text, which
 * 2025-11-25 server/tools §Structured Content already asks every structured result to include.
 */
function legacyToolList(result: Record<string, unknown>): Record<string, unknown> {
  const out = legacyResult(result)
  const tools = out.tools
  if (Array.isArray(tools) && tools.some(hasForeignOutputSchema)) out.tools = tools.map(legacyTool)
  return out
}

const hasForeignOutputSchema = (tool: unknown): boolean =>
  isRecord(tool) &&
  tool.outputSchema !== undefined &&
  !(isRecord(tool.outputSchema) && tool.outputSchema.type === 'object')

/** One tool as a 2025-era peer sees it in `tools/list` (also used for `search_tools` results). */
export function legacyTool<T>(tool: T): T {
  if (!hasForeignOutputSchema(tool)) return tool
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(tool as Record<string, unknown>))
    if (key !== 'outputSchema') out[key] = value
  return out as T
}

/** `tools/call` for a 2025-era peer: `structuredContent` only when it is an object (the text copy stays). */
function legacyToolCall(result: Record<string, unknown>): Record<string, unknown> {
  const out = legacyResult(result)
  if (out.structuredContent !== undefined && !isRecord(out.structuredContent)) delete out.structuredContent
  return out
}

/** `_meta` without `serverInfo`; undefined when nothing else is left. */
function withoutServerInfo(meta: unknown): unknown {
  if (!isRecord(meta) || !(META_SERVER_INFO in meta)) return meta
  let others: Record<string, unknown> | undefined
  for (const key of Object.keys(meta)) if (key !== META_SERVER_INFO) (others ??= {})[key] = meta[key]
  return others
}
