/**
 * The client side of a server's tool search: `search_tools` is an ordinary tool (toolwire's
 * `defineServer({ toolSearch })` and other servers that hide most tools behind a search tool), so the
 * request is a tools/call; what is specific is reading its `structuredContent.tools` as tool definitions,
 * which are as untrusted as a `tools/list` page and go through the same checks (tools.ts `accept`).
 */
import { isRecord } from '../wire/jsonrpc.js'
import type { Tool } from '../wire/types.js'
import { InvalidResponseError } from './errors.js'

/** The tool a searching server offers; `searchTools` needs it listed. */
export const SEARCH_TOOLS = 'search_tools'
/** Results asked for when the caller gives no `limit` (toolwire's server default). */
export const DEFAULT_SEARCH_LIMIT = 10

/**
 * Options of `client.searchTools`.
 *
 * @example
 * ```ts
 * const found = await client.searchTools('create calendar event', { limit: 5, timeoutMs: 10_000 })
 * ```
 */
export interface SearchToolsOptions {
  /** How many tools to ask for (default 10; toolwire's server allows 1 to 50). At most this many are returned. */
  readonly limit?: number
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
}

/** The limit asked for, refused before anything is sent when it is not a positive integer. */
export function searchLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_SEARCH_LIMIT
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`searchTools: limit must be a positive integer, got ${String(limit)}`)
  return value
}

/**
 * The arguments sent: `limit` only when the server's `search_tools` declares it (a search tool of another
 * server may take only a query; the client then keeps the first `limit` results itself).
 */
export function searchArguments(searchTool: Tool, query: string, limit: number): Record<string, unknown> {
  const properties = (searchTool.inputSchema as { properties?: unknown }).properties
  const takesLimit = isRecord(properties) && 'limit' in properties
  return takesLimit ? { query, limit } : { query }
}

/**
 * The candidate definitions of a search answer: `structuredContent.tools`, at most `limit` of them (a server
 * that sends more is cut, not trusted to have ranked past what was asked).
 */
export function searchCandidates(structured: unknown, limit: number): unknown[] {
  const tools = isRecord(structured) ? structured.tools : undefined
  if (!Array.isArray(tools))
    throw new InvalidResponseError(
      `tools/call ${SEARCH_TOOLS}: the result has no structuredContent.tools array`,
    )
  return tools.slice(0, limit)
}
