/**
 * Tool search (`defineServer({ toolSearch })`): a server with many tools lists only its pinned tools plus
 * `search_tools` and `call_tool`, so a model's context holds a few definitions instead of hundreds. Search
 * ranks by BM25 (bm25.ts) over an index built once per change of the tool set; `call_tool` re-enters the
 * server's own tools/call (call.ts), so a tool reached through it is checked and limited exactly as when it is
 * called directly.
 */
import type { RequestContext } from '../../protocol/context.js'
import { rawJson, type RawJson } from '../../protocol/encode.js'
import { staleCursor } from '../../protocol/pagination.js'
import type { SchemaCompiler } from '../../schema/json-schema.js'
import { META_SERVER_INFO } from '../../wire/meta.js'
import type { Tool } from '../../wire/types.js'
import type { ListOptions } from '../catalog.js'
import { Bm25Index, type Bm25Field } from './bm25.js'
import { type CompiledTool, compileTool, ToolDefinitionError } from './compile.js'
import { defineTool } from './define.js'
import type { ToolRegistry } from './registry.js'
import { toolResult } from './result.js'

/** The two tools a searching server lists; a server may not define tools of these names. */
export const SEARCH_TOOLS = 'search_tools'
export const CALL_TOOL = 'call_tool'
/** Below this many tools a caller may see, `tools/list` stays the full list. */
export const DEFAULT_MIN_TOOLS = 30
/** Results per search when the caller gives no `limit`, and the most it may ask for. */
export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 50
/** Longest query accepted (characters): a bound on the words one search scores. */
export const MAX_QUERY_LENGTH = 1000

/**
 * `defineServer({ toolSearch })`: when a caller may see more than `minTools` tools (default 30), `tools/list`
 * answers the `pinned` tools (default none) plus `search_tools` and `call_tool`.
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'big',
 *   version: '1.0.0',
 *   tools,
 *   toolSearch: { minTools: 30, pinned: ['notes_read'] },
 * })
 * ```
 */
export interface ToolSearchOptions {
  /** Search replaces the full list when a caller may see more than this many tools (default 30). */
  minTools?: number
  /** Tools always listed beside the two search tools (each must be defined); default none. */
  pinned?: readonly string[]
}

/**
 * The settings of a `toolSearch` option, checked: `true` takes the defaults. `where` names the option in
 * messages (a gateway profile's `profiles.ops.toolSearch`).
 */
export function toolSearchSettings(
  option: true | ToolSearchOptions,
  where = 'toolSearch',
): { minTools: number; pinned: string[] } {
  if (option !== true && (typeof option !== 'object' || option === null || Array.isArray(option)))
    throw new TypeError(`${where} must be true or an object { minTools, pinned }`)
  const options = option === true ? {} : option
  const unknown = Object.keys(options).filter((key) => key !== 'minTools' && key !== 'pinned')
  if (unknown.length > 0)
    throw new TypeError(`${where} has unknown keys ${unknown.join(', ')} (it takes minTools, pinned)`)
  const minTools = options.minTools ?? DEFAULT_MIN_TOOLS
  if (!Number.isInteger(minTools) || minTools < 0)
    throw new TypeError(`${where}.minTools must be an integer >= 0`)
  const pinned: unknown = options.pinned ?? []
  if (!Array.isArray(pinned) || pinned.some((name) => typeof name !== 'string'))
    throw new TypeError(`${where}.pinned must be an array of tool names`)
  return { minTools, pinned: [...(pinned as string[])] }
}

/** What the server hands the search: who sees what, and how a 2025-era caller sees a tool. */
export interface ToolSearchHost {
  readonly registry: ToolRegistry
  readonly compiler: SchemaCompiler
  readonly list: ListOptions
  readonly visible: ((tool: CompiledTool, ctx: RequestContext) => boolean) | undefined
  /** A tool definition as this caller's revision lists it (2025-era shapes drop some output schemas). */
  readonly shape: (tool: Tool, ctx: RequestContext) => Tool
}

interface BuiltIndex {
  readonly version: number
  readonly tools: readonly CompiledTool[]
  readonly index: Bm25Index
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export class ToolSearch {
  readonly minTools: number
  readonly searchTool: CompiledTool
  readonly callTool: CompiledTool
  readonly #host: ToolSearchHost
  #pinned: readonly string[]
  #built: BuiltIndex | undefined
  #builds = 0
  /** The unfiltered short list, serialized once per tool-set version. */
  #page: { version: number; page: RawJson } | undefined

  constructor(option: true | ToolSearchOptions, host: ToolSearchHost, definedNames: readonly string[]) {
    const { minTools, pinned } = toolSearchSettings(option)
    for (const name of pinned) {
      if (!definedNames.includes(name))
        throw new ToolDefinitionError(`toolSearch.pinned names ${name}, which is not a defined tool`)
    }
    this.minTools = minTools
    this.#pinned = pinned
    this.#host = host
    this.searchTool = compileTool(
      searchDefinition((args, ctx) => this.#answer(args, ctx)),
      host.compiler,
    )
    this.callTool = compileTool(callDefinition, host.compiler)
  }

  /** The tools always listed beside the two search tools. */
  get pinned(): readonly string[] {
    return this.#pinned
  }

  /**
   * Pins tools that exist only once the server is defined (a gateway lists its members' tools afterwards);
   * the caller has checked the names against what it lists. A pinned tool that goes away is not listed.
   */
  pin(names: readonly string[]): void {
    this.#pinned = [...names]
    this.#page = undefined
  }

  /** How many times the index was built: once per change of the tool set, however many searches ran. */
  get builds(): number {
    return this.#builds
  }

  /** One of the two search tools by name; undefined for any other name. */
  get(name: string): CompiledTool | undefined {
    return name === SEARCH_TOOLS ? this.searchTool : name === CALL_TOOL ? this.callTool : undefined
  }

  /** True when this caller may see more than `minTools` tools (counting stops there). */
  active(ctx: RequestContext): boolean {
    const { registry, visible } = this.#host
    if (!visible) return registry.size > this.minTools
    let seen = 0
    for (const tool of registry.enabled()) {
      if (visible(tool, ctx) && ++seen > this.minTools) return true
    }
    return false
  }

  /**
   * The short `tools/list` answer: pinned tools this caller sees, then the two search tools. One page: a
   * cursor can only come from a full list served before the set grew, so the client starts over.
   */
  list(ctx: RequestContext, cursor: unknown): RawJson | Record<string, unknown> {
    if (cursor !== undefined) throw staleCursor()
    const { registry, visible, list } = this.#host
    if (!visible && this.#page?.version === registry.version) return this.#page.page
    const tools: Tool[] = []
    for (const name of this.#pinned) {
      const tool = registry.get(name)
      if (tool && (!visible || visible(tool, ctx))) tools.push(tool.wire)
    }
    tools.push(this.searchTool.wire, this.callTool.wire)
    const result: Record<string, unknown> = {
      resultType: 'complete',
      tools,
      ttlMs: list.ttlMs,
      // A list filtered per caller is private, as the full list is (catalog.ts).
      cacheScope: visible ? 'private' : list.cacheScope,
    }
    if (list.serverInfo) result._meta = { [META_SERVER_INFO]: list.serverInfo }
    if (visible) return result
    const page = rawJson(JSON.stringify(result))
    this.#page = { version: registry.version, page }
    return page
  }

  /** The best matches this caller may see, as its revision lists them. */
  search(query: string, limit: number, ctx: RequestContext): Tool[] {
    const { tools, index } = this.#index()
    const { visible, shape } = this.#host
    const accept = visible && ((doc: number) => tools[doc] !== undefined && visible(tools[doc], ctx))
    const found: Tool[] = []
    for (const { doc } of index.search(query, limit, accept || undefined)) {
      const tool = tools[doc]
      if (tool) found.push(shape(tool.wire, ctx))
    }
    return found
  }

  #index(): BuiltIndex {
    const { registry } = this.#host
    if (this.#built?.version === registry.version) return this.#built
    const tools = registry.enabled()
    this.#builds++
    this.#built = { version: registry.version, tools, index: new Bm25Index(tools.map(fieldsOf)) }
    return this.#built
  }

  #answer(args: { query: string; limit?: number | undefined }, ctx: RequestContext): unknown {
    const tools = this.search(args.query, args.limit ?? DEFAULT_LIMIT, ctx)
    // Clients that read only `content` still get the names (server/tools §Structured Content).
    const names = tools.map((tool) => tool.name)
    const text = names.length === 0 ? 'No tools match.' : JSON.stringify(names)
    return toolResult({ content: [{ type: 'text', text }], structuredContent: { tools } })
  }
}

/** Name words weigh most, then title, then description and argument names and descriptions. */
function fieldsOf(tool: CompiledTool): Bm25Field[] {
  const wire = tool.wire
  const fields: Bm25Field[] = [{ text: wire.name, weight: 3 }]
  if (wire.title) fields.push({ text: wire.title, weight: 2 })
  if (wire.description) fields.push({ text: wire.description, weight: 1 })
  const properties = (wire.inputSchema as { properties?: unknown }).properties
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, schema] of Object.entries(properties)) {
      fields.push({ text: name, weight: 1 })
      const description = (schema as { description?: unknown } | null)?.description
      if (typeof description === 'string') fields.push({ text: description, weight: 1 })
    }
  }
  return fields
}

function searchDefinition(
  answer: (args: { query: string; limit?: number | undefined }, ctx: RequestContext) => unknown,
): ReturnType<typeof defineTool> {
  return defineTool({
    name: SEARCH_TOOLS,
    title: 'Search tools',
    description:
      "Finds this server's tools by what they do. Returns the best matches with their full definitions; " +
      `call one with ${CALL_TOOL}.`,
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUERY_LENGTH,
          description: 'Words describing the tool wanted, e.g. "create calendar event"',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          default: DEFAULT_LIMIT,
          description: `How many tools to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { tools: { type: 'array', items: { type: 'object' } } },
      required: ['tools'],
    },
    handler: (args, ctx) => answer(args as { query: string; limit?: number }, ctx) as never,
  })
}

const callDefinition = defineTool({
  name: CALL_TOOL,
  title: 'Call a tool',
  description: `Calls one of this server's tools by name (find it with ${SEARCH_TOOLS}) with its arguments.`,
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'The tool name, as search_tools returned it' },
      arguments: { type: 'object', description: "The tool's arguments, matching its inputSchema" },
    },
    required: ['name'],
    additionalProperties: false,
  },
  // Never run: tools/call sees this tool and re-enters itself with the named tool (call.ts).
  handler: () => {
    throw new Error('call_tool is served by tools/call')
  },
})
