/** `defineTool`: a tool in a few lines, with the handler's argument type inferred from its input schema. */
import type { RequestContext } from '../../protocol/context.js'
import type { InferSchema, SchemaInput } from '../../schema/standard.js'
import type { CallToolResult, ContentBlock, Icon, MetaObject, ToolAnnotations } from '../../wire/types.js'
import type { ToolResult } from './result.js'
import type { ToolUi } from '../apps/tool-ui.js'
import type { AppViewDefinition } from '../apps/view.js'

/** What a handler may return: the structured value when an output schema is declared, else content sugar. */
export type ToolReturn<O> = [O] extends [undefined]
  ? | string
    | ContentBlock
    | ContentBlock[]
    | CallToolResult
    | ToolResult
    | object
    | number
    | boolean
    | null
    | void
  : InferSchema<O, unknown> | ToolResult

/**
 * `'optional'`: a client that declares the tasks extension gets a task, others a plain result.
 * `'required'`: a client without the extension gets -32021 (extensions/tasks §Capability Negotiation).
 */
export type TaskSupport = 'optional' | 'required'

export interface TaskOptions {
  support: TaskSupport
  /** How long the task and its result stay readable (default 1 hour). */
  ttlMs?: number
  /** The polling interval suggested to clients (default 1 s). */
  pollIntervalMs?: number
  /**
   * `'immediate'` (default): the task is created before the handler runs. `'explicit'`: the handler runs in
   * the request (it may ask for input there, through multi-round-trip requests) until it calls
   * `await ctx.task.start()`.
   */
  start?: 'immediate' | 'explicit'
}

/**
 * The context a tool handler receives: signal, progress, logger, auth and the request's `_meta`.
 *
 * @example
 * ```ts
 * const slow = defineTool({
 *   name: 'slow',
 *   handler: async (_args, ctx: ToolContext) => {
 *     ctx.progress(1, 2, 'halfway')
 *     ctx.log.info('working for', ctx.auth?.subject)
 *     return fetchReport({ signal: ctx.signal })
 *   },
 * })
 * ```
 */
export type ToolContext = RequestContext

/**
 * What `defineTool` takes: the tool's metadata, schemas and handler.
 *
 * @example
 * ```ts
 * const read = defineTool({
 *   name: 'notes_read',
 *   description: 'Reads a note',
 *   inputSchema: jsonSchema<{ id: string }>({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }),
 *   annotations: { readOnlyHint: true },
 *   handler: ({ id }) => notes.get(id) ?? '',
 * })
 * ```
 */
export interface ToolConfig<I extends SchemaInput | undefined, O extends SchemaInput | undefined> {
  /** 1–128 characters of `A-Z a-z 0-9 _ - .`, unique within the server. */
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  annotations?: ToolAnnotations
  _meta?: MetaObject
  /** Zod v4 (or any Standard Schema with JSON Schema export) or a JSON Schema object with root type object. */
  inputSchema?: I
  /** Validates `structuredContent`; the handler then returns the structured value itself. */
  outputSchema?: O
  /** Scopes a caller needs to see and call this tool (enforced when the server has auth). */
  scopes?: readonly string[]
  /** Aborts the handler's signal and answers a tool error after this long. */
  timeoutMs?: number
  /** Lets calls run as tasks (the tasks extension): `'optional'`, `'required'`, or the details. */
  task?: TaskSupport | TaskOptions
  /**
   * MCP Apps: the view hosts render the tool's results in (a `defineAppView` definition, served by the server
   * without listing it in `resources`), or `{ view, visibility }`; written to `_meta.ui` (docs/apps.md).
   */
  ui?: AppViewDefinition | ToolUi
  handler: (
    args: I extends undefined ? Record<string, never> : InferSchema<I>,
    ctx: ToolContext,
  ) => ToolReturn<O> | Promise<ToolReturn<O>>
}

const TOOL = Symbol.for('toolwire.tool')

/**
 * A tool definition, validated and compiled when a server is defined.
 *
 * @example
 * ```ts
 * const tools: ToolDefinition[] = [defineTool({ name: 'ping', handler: () => 'pong' })]
 * const server = defineServer({ name: 'x', version: '1.0.0', tools })
 * ```
 */
export interface ToolDefinition {
  readonly [TOOL]: true
  readonly config: ToolConfig<SchemaInput | undefined, SchemaInput | undefined>
}

/**
 * Defines a tool. The handler's arguments are typed from `inputSchema` and its return value is checked against
 * `outputSchema`; both are compiled when the server is defined.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   outputSchema: z.object({ sum: z.number() }),
 *   handler: ({ a, b }) => ({ sum: a + b }),
 * })
 * ```
 */
export function defineTool<
  const I extends SchemaInput | undefined = undefined,
  const O extends SchemaInput | undefined = undefined,
>(config: ToolConfig<I, O>): ToolDefinition {
  return { [TOOL]: true, config: config as unknown as ToolDefinition['config'] }
}

export function isToolDefinition(value: unknown): value is ToolDefinition {
  return typeof value === 'object' && value !== null && TOOL in value
}
