/** `tools/list` and `tools/call`: validate, run the handler, shape and check the result. */
import type { RequestContext } from '../../protocol/context.js'
import { markRefused } from '../../protocol/telemetry.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { CLEANED, type ResultPayload } from '../../protocol/encode.js'
import { InputRequired } from '../../protocol/mrtr/inputs.js'
import { takeFiniteVouch } from '../../protocol/finite-arguments.js'
import { RelayedTask, StartTask } from '../../protocol/task-control.js'
import { contentAnnotationProblem } from '../../wire/annotations.js'
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
import { contentProblem, jsonText, normalizeReturn, toolResult } from './result.js'
import type { ToolSearch } from './search.js'
import { addedBytes } from './result-size.js'

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

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true })

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

/**
 * What the server's output guard does to a result before it is sent: `clean` returns it with every string
 * sanitised and redacted plus its encoded size in bytes, `size` measures a value added afterwards, and `fit`
 * applies the size cap. A refusal becomes an `isError` result; `log` goes to the operator only.
 */
export interface ResultGuard {
  clean(
    result: CallToolResult,
  ): { result: CallToolResult; bytes: number } | { refuse: string; log?: string | undefined }
  size(value: unknown): number
  fit(result: CallToolResult, bytes: number): { result: CallToolResult } | { refuse: string; log?: string }
}

/**
 * The output pipeline: handler value -> parse with the outputSchema (the parsed value is what is sent:
 * defaults applied, unknown keys dropped) -> clean the structure (guard) -> validate what will be sent ->
 * JSON text copy -> size cap. Output that breaks the tool's own contract is a server bug, never sent as
 * valid. Module-level helpers rather than closures: this runs on every call.
 */
function finishResult(
  tool: CompiledTool,
  returned: unknown,
  options: ToolCallOptions,
): CallToolResult | Promise<CallToolResult> {
  const result = normalizeReturn(returned, tool.output !== undefined)
  if (!Array.isArray(result.content)) invalidResult(tool, options, 'content must be an array')
  const content = result.content
  for (let index = 0; index < content.length; index++) {
    const problem = index in content ? contentProblem(content[index], index) : undefined // holes: as forEach
    if (problem) invalidResult(tool, options, problem)
  }
  if (options.embeddedResource && content.some(isEmbeddedResource)) options.embeddedResource(tool)
  if (result.isError || !tool.output) return guardResult(tool, options, result)
  if (result.structuredContent === undefined)
    invalidResult(tool, options, 'structuredContent is required by outputSchema')
  const outcome = tool.output.validateAsync(result.structuredContent)
  return outcome instanceof Promise
    ? outcome.then((settled) => settleOutput(tool, options, result, settled))
    : settleOutput(tool, options, result, outcome)
}

const isEmbeddedResource = (block: unknown): boolean => (block as { type?: unknown }).type === 'resource'

function invalidResult(tool: CompiledTool, options: ToolCallOptions, problem: string): never {
  const ref = options.report(`tool ${tool.name} returned an invalid result: ${problem}`, new Error(problem))
  throw internalError(`Internal error: tool ${tool.name} produced an invalid result (ref ${ref})`, {
    correlationId: ref,
  })
}

function settleOutput(
  tool: CompiledTool,
  options: ToolCallOptions,
  result: CallToolResult,
  outcome: ValidationOutcome,
): CallToolResult {
  if (!outcome.ok)
    invalidResult(tool, options, `structuredContent breaks outputSchema: ${outcome.issues.join('; ')}`)
  const parsed = outcome.value as Record<string, unknown>
  return guardResult(
    tool,
    options,
    parsed === result.structuredContent ? result : { ...result, structuredContent: parsed },
  )
}

function refusal(tool: CompiledTool, options: ToolCallOptions, refuse: string, log?: string): CallToolResult {
  if (log === undefined) return markRefused(errorResult(`Tool ${tool.name} ${refuse}`), 'output')
  const ref = options.report(`tool ${tool.name} output refused: ${log}`, new Error(log))
  return markRefused(errorResult(`Tool ${tool.name} ${refuse} (ref ${ref})`), 'output')
}

/** The bytes of a text block's JSON besides its text's own (quotes included there): `{"type":"text","text":}`. */
export const TEXT_BLOCK_BYTES = '{"type":"text","text":}'.length

/** Clean, check what will be sent, add the JSON text copy, cap. */
function guardResult(tool: CompiledTool, options: ToolCallOptions, result: CallToolResult): CallToolResult {
  const guard = options.guardResult
  if (!guard) {
    checkAnnotations(tool, options, result.content)
    return withTextCopy(result)
  }
  const cleaned = guard.clean(result)
  if ('refuse' in cleaned) return refusal(tool, options, cleaned.refuse, cleaned.log)
  const sent = cleaned.result
  checkAnnotations(tool, options, sent.content)
  const structured = sent.structuredContent
  // Cleaning changed the structured value: check the changed value, since that is what the client checks.
  if (tool.output && !sent.isError && structured !== result.structuredContent) {
    const outcome = tool.output.checkPublished(structured)
    if (!outcome.ok) {
      return refusal(
        tool,
        options,
        'returned output that no longer matches its outputSchema once unsafe characters and secrets were removed',
        outcome.issues.join('; '),
      )
    }
  }
  let bytes = cleaned.bytes
  let final = sent
  if (structured !== undefined && sent.content.length === 0) {
    const copy = jsonText(structured)
    final = { ...sent, content: [copy] }
    // `{"type":"text","text":…}` around the text: the same count as measuring the block, without its walk.
    bytes += TEXT_BLOCK_BYTES + guard.size(copy.text)
  }
  const fitted = guard.fit(final, bytes + addedBytes(final, options.serverInfo))
  return 'refuse' in fitted ? refusal(tool, options, fitted.refuse, fitted.log) : fitted.result
}

/**
 * Content annotations as they will be sent (after sanitising, which may strip escapes from an audience role):
 * an audience other than user/assistant, a priority outside [0, 1] or a lastModified that is not ISO 8601 is
 * a server bug, never sent as valid (schema `Annotations`).
 */
function checkAnnotations(tool: CompiledTool, options: ToolCallOptions, content: readonly unknown[]): void {
  const problem = contentAnnotationProblem(content)
  if (problem) invalidResult(tool, options, problem)
}

/** Clients that read only `content` still see structured output, as JSON text (server/tools §Structured Content). */
function withTextCopy(result: CallToolResult): CallToolResult {
  if (result.structuredContent !== undefined && result.content.length === 0) {
    return { ...result, content: [jsonText(result.structuredContent)] }
  }
  return result
}
