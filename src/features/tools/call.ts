/** `tools/list` and `tools/call`: validate, run the handler, shape and check the result. */
import type { RequestContext } from '../../protocol/context.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { CLEANED, type ResultPayload } from '../../protocol/encode.js'
import { InputRequired } from '../../protocol/mrtr/inputs.js'
import { takeFiniteVouch } from '../../protocol/finite-arguments.js'
import { RelayedTask, StartTask } from '../../protocol/task-control.js'
import {
  internalError,
  invalidParams,
  isAnswerError,
  missingCapability,
  notFound,
} from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import { PROTOCOL_VERSION } from '../../wire/meta.js'
import type { CallToolResult, Implementation } from '../../wire/types.js'
import type { ValidationOutcome } from '../../schema/json-schema.js'
import type { CompiledTool } from './compile.js'
import { type ErrorExposure, exposesMessage } from './errors.js'
import { checkParamHeaders } from './header-check.js'
import type { ToolRegistry } from './registry.js'
import { errorResult, toolResult } from './result.js'
import { finishResult, guardResult, type ResultGuard } from './output.js'
export type { ResultGuard } from './output.js'
export { TEXT_BLOCK_BYTES } from './output.js'
import type { ToolSearch } from './search.js'

/** The tasks extension's part in tools/call (see features/tasks/engine.ts). */
export interface TaskHooks {
  /** True when this request's client capabilities declare the tasks extension. */
  declared(ctx: RequestContext): boolean
  /** Stores a task for this call and starts it; resolves to the `CreateTaskResult`. */
  create(
    tool: CompiledTool,
    ctx: RequestContext,
    args: Record<string, unknown>,
    answers: Record<string, unknown>,
  ): Promise<ResultPayload>
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

export interface ToolCallOptions {
  /** Present when the server offers the tasks extension. */
  readonly tasks?: TaskHooks
  /**
   * Arguments that fail `inputSchema`: an `isError` result (default: server/tools §Error Handling calls it a
   * tool execution error, though the schema's InvalidParamsError example says -32602) or -32602.
   */
  readonly invalidArguments: 'tool-error' | 'protocol-error'
  readonly errorExposure: ErrorExposure
  /** Which tools a request may see and call; undefined when every caller sees every tool. */
  readonly visible?: (tool: CompiledTool, ctx: RequestContext) => boolean
  /** Logs an internal failure and returns its correlation id. */
  readonly report: (what: string, error: unknown) => string
  /** Sanitising, redaction and the size cap for results (security.output); absent: results go out as returned. */
  readonly guardResult?: ResultGuard
  /**
   * Runs around the handler (limits, timeouts, the server's own wrapper). `run` returns the handler's value
   * or a promise of it, and the wrapper may return either, so a synchronous handler awaits nothing.
   */
  readonly wrapHandler?: (tool: CompiledTool, ctx: RequestContext, run: () => unknown) => unknown
  /**
   * The server info the dispatcher adds to each result's `_meta` (basic/index §_meta); absent when it adds
   * none. The size cap counts it: the cap is on the whole encoded result.
   */
  readonly serverInfo?: Implementation
  /**
   * Present when the server offers no resources: told the first time a tool returns an embedded resource
   * (server/tools §Embedded Resources: servers that use them SHOULD implement the resources capability).
   * A tool definition has no field that declares such content, so this is noticed in a result, not at
   * definition.
   */
  readonly embeddedResource?: (tool: CompiledTool) => void
  /** `defineServer({ toolSearch })`: the short list, `search_tools` and `call_tool` (search.ts). */
  readonly search?: ToolSearch
}

export function toolMethods(registry: ToolRegistry, options: ToolCallOptions): Record<string, MethodSpec> {
  const { visible, search } = options
  return {
    'tools/list': {
      handler: (ctx) =>
        search?.active(ctx)
          ? search.list(ctx, ctx.params.cursor)
          : registry.page(ctx.params.cursor, visible && ((tool) => visible(tool, ctx))),
    },
    'tools/call': {
      nameParam: 'name',
      handler: (ctx) => callTool(registry, options, ctx, ctx.params.name, ctx.params.arguments, true),
    },
  }
}

/** The tool a tools/call names, checked against the HTTP headers; throws the protocol error otherwise. */
export function resolveTool(
  registry: ToolRegistry,
  options: ToolCallOptions,
  ctx: RequestContext,
  name: unknown = ctx.params.name,
  args: unknown = ctx.params.arguments,
  outer = true,
): CompiledTool {
  if (typeof name !== 'string') throw invalidParams('Invalid params: tools/call needs a string name')
  if (args !== undefined && !isRecord(args))
    throw invalidParams('Invalid params: arguments must be an object')
  // The search tools answer only an outer call: call_tool cannot name itself or search_tools.
  const own = outer ? options.search?.get(name) : undefined
  if (own) return own
  const tool = registry.get(name)
  if (!tool || (options.visible && !options.visible(tool, ctx))) throw notFound(`Unknown tool: ${name}`)
  // `Mcp-Param-*` headers exist from revision 2026-07-28 on (streamable-http §Custom Headers from Tool
  // Parameters); a 2025-era session's client never sends them, so they are not asked of it.
  if (tool.headerParams.length > 0 && ctx.meta.protocolVersion >= PROTOCOL_VERSION) {
    const header = ctx.exchange.header // a bound function made on read: only when needed
    if (header) checkParamHeaders(tool.headerParams, args, header)
  }
  return tool
}

/** The payload sent; marked as already cleaned when the output guard ran, so it is not walked twice. */
function complete(options: ToolCallOptions, result: CallToolResult): ResultPayload {
  // Made whole by the output pipeline already (a result of structured content alone, output.ts).
  if (CLEANED in result) return result as unknown as ResultPayload
  // A symbol key: JSON.stringify and the redaction walk skip it.
  if (!options.guardResult) return { resultType: 'complete', ...result }
  return { resultType: 'complete', ...result, [CLEANED]: true } as Record<string, unknown>
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

type Payload = ResultPayload | Promise<ResultPayload>

/**
 * Runs one call. Each step returns its value when it finished synchronously and a promise only when
 * something in it was asynchronous (a validator, the handler, the output check): a small synchronous tool
 * then costs no promise or async frame of its own. Errors that are answers (protocol errors, `input_required`)
 * are thrown; the middleware chain turns a synchronous throw into a rejection.
 */
function callTool(
  registry: ToolRegistry,
  options: ToolCallOptions,
  ctx: RequestContext,
  name: unknown,
  args: unknown,
  outer: boolean,
): Payload {
  const tool = resolveTool(registry, options, ctx, name, args, outer)
  const taskable = taskDecision(tool, options.tasks, ctx)
  // Arguments the input guard walked are known free of Infinity (protocol/finite-arguments.ts).
  const validated = tool.input.validateAsync(args ?? {}, takeFiniteVouch(args))
  if (tool === options.search?.callTool) {
    // call_tool: its own arguments checked, the named tool runs through this same function, so visibility,
    // validation, limits, input rounds and tasks are exactly those of a direct call.
    const inner = (checked: ValidationOutcome): Payload => {
      if (!checked.ok) return runValidated(tool, options, ctx, undefined, checked)
      const { name: innerName, arguments: innerArgs } = checked.value as Record<string, unknown>
      return callTool(registry, options, ctx, innerName, innerArgs, false)
    }
    return validated instanceof Promise ? validated.then(inner) : inner(validated)
  }
  return validated instanceof Promise
    ? validated.then((checked) => runValidated(tool, options, ctx, taskable, checked))
    : runValidated(tool, options, ctx, taskable, validated)
}

function runValidated(
  tool: CompiledTool,
  options: ToolCallOptions,
  ctx: RequestContext,
  taskable: TaskHooks | undefined,
  checked: ValidationOutcome,
): Payload {
  if (!checked.ok) {
    const message = `Invalid arguments for tool ${tool.name}: ${checked.issues.join('; ')}`
    ctx.refused('validation')
    if (options.invalidArguments === 'protocol-error') throw invalidParams(message)
    return { resultType: 'complete', ...errorResult(message) }
  }
  const args = checked.value as Record<string, never>
  if (taskable && tool.task?.start === 'immediate') return taskable.create(tool, ctx, args, {})
  if (taskable) ctx.attachTask({ id: undefined, start: () => Promise.reject(new StartTask()) })
  let returned: unknown
  try {
    returned = options.wrapHandler
      ? options.wrapHandler(tool, ctx, () => tool.handler(args, ctx))
      : tool.handler(args, ctx)
  } catch (error) {
    return handlerFailed(tool, options, ctx, taskable, args, error)
  }
  if (!isThenable(returned)) return finish(tool, options, returned)
  return Promise.resolve(returned).then(
    (value) => finish(tool, options, value),
    (error: unknown) => handlerFailed(tool, options, ctx, taskable, args, error),
  )
}

/** What a throwing handler's call answers; protocol errors and `input_required` are rethrown as they are. */
function handlerFailed(
  tool: CompiledTool,
  options: ToolCallOptions,
  ctx: RequestContext,
  taskable: TaskHooks | undefined,
  args: Record<string, never>,
  error: unknown,
): Payload {
  // The handler asked to continue as a task: keep what it was told so far for its replay (§MRTR composition).
  if (error instanceof StartTask && taskable) return taskable.create(tool, ctx, args, ctx.input.answered())
  if (error instanceof RelayedTask) return error.result
  if (isAnswerError(error) || error instanceof InputRequired) throw error
  if (exposesMessage(error, options.errorExposure)) {
    const message = (error as Error).message || `Tool ${tool.name} failed`
    return complete(options, guardResult(tool, options, errorResult(message)))
  }
  // A handler that stops because its call was cancelled (a closed connection, `notifications/cancelled`,
  // `tasks/cancel`) did what it was asked: nobody waits for the answer, and there is nothing to report.
  if (
    ctx.signal.aborted &&
    (error === ctx.signal.reason || (error as Error | undefined)?.name === 'AbortError')
  )
    return { resultType: 'complete', ...errorResult(`Tool ${tool.name} was cancelled`) }
  const ref = options.report(`tool ${tool.name} threw`, error)
  return { resultType: 'complete', ...errorResult(`Tool ${tool.name} failed unexpectedly (ref ${ref})`) }
}

function finish(tool: CompiledTool, options: ToolCallOptions, returned: unknown): Payload {
  const finished = finishResult(tool, returned, options)
  return finished instanceof Promise
    ? finished.then((result) => complete(options, result))
    : complete(options, finished)
}

/**
 * Whether this call may become a task: the tool supports tasks, the server offers them, the request is not
 * already a task's run, and the client declared the extension. A tool that runs only as a task fails for a
 * client without it (extensions/tasks §Capability Negotiation: -32021 naming the extension).
 */
function taskDecision(
  tool: CompiledTool,
  tasks: TaskHooks | undefined,
  ctx: RequestContext,
): TaskHooks | undefined {
  if (!tool.task || !tasks || ctx.task.id !== undefined) return undefined
  // A 2025-era session has no 2026-07-28 tasks extension to declare, and 2025-11-25 tasks are not served:
  // every tool, one marked `required` included, runs to completion within the call and its tool timeout
  // (docs/protocol-versions.md). A CreateTaskResult would be a shape that revision does not know.
  if (ctx.meta.protocolVersion < PROTOCOL_VERSION) return undefined
  if (tasks.declared(ctx)) return tasks
  if (tool.task.support === 'required')
    throw missingCapability(
      { extensions: { [TASKS_EXTENSION]: {} } },
      `Tool ${tool.name} runs only as a task: declare the ${TASKS_EXTENSION} extension`,
    )
  return undefined
}

/**
 * A result made elsewhere for the tool `name` (the upstream task a relayed task stands for), through the
 * tool's own output pipeline: the outputSchema check, the output guard, the JSON text copy, the size cap.
 */
export async function finishForeignResult(
  registry: ToolRegistry,
  options: ToolCallOptions,
  name: string,
  result: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const tool = registry.get(name)
  if (!tool)
    throw internalError(
      `Internal error: tool ${name} is no longer offered, so its task result cannot be checked`,
    )
  return { ...(await finishResult(tool, toolResult(result as unknown as CallToolResult), options)) }
}
