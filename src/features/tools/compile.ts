/** Checks a tool definition against the spec's rules and compiles its schemas, once, at definition time. */
import type { SchemaCompiler } from '../../schema/json-schema.js'
import { type PreparedSchema, prepareSchema } from '../../schema/standard.js'
import { type HeaderParam, scanHeaderParams } from '../../schema/x-mcp-header.js'
import type { Tool } from '../../wire/types.js'
import { baseProblems, toolAnnotationProblems } from '../metadata.js'
import type { TaskOptions, ToolConfig, ToolDefinition } from './define.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'
import { toolMetaWithUi } from '../apps/tool-ui.js'
import { TOOL_NAME } from '../../wire/tool-name.js'

/**
 * An invalid tool definition, thrown by `defineTool` and `defineServer`.
 *
 * @example
 * ```ts
 * try {
 *   defineTool({ name: 'bad name!', handler: () => '' })
 * } catch (error) {
 *   if (error instanceof ToolDefinitionError) console.error(error.message)
 * }
 * ```
 */
export class ToolDefinitionError extends ToolwireError {
  override readonly name = 'ToolDefinitionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_TOOL_DEFINITION'
  }
}

export { TOOL_NAME }
const NO_HEADER_PARAMS = { params: [], problems: [] } as const

/** A tool with no parameters accepts only an empty object (server/tools §Tool with no parameters). */
const NO_PARAMS = Object.freeze({ type: 'object', additionalProperties: false }) as Record<string, unknown>

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface CompiledTool {
  /** The tool's name, as the catalog keys it. */
  readonly key: string
  readonly name: string
  /** The definition exactly as `tools/list` publishes it. */
  readonly wire: Tool
  readonly input: PreparedSchema
  readonly output: PreparedSchema | undefined
  readonly headerParams: readonly HeaderParam[]
  readonly scopes: readonly string[]
  readonly timeoutMs: number | undefined
  /** Task support, normalised; undefined for tools that always answer in the request. */
  readonly task: Required<TaskOptions> | undefined
  readonly handler: ToolConfig<undefined, undefined>['handler']
}

export function compileTool(definition: ToolDefinition, compiler: SchemaCompiler): CompiledTool {
  const config = definition.config
  const name = config.name
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new ToolDefinitionError(
      `Tool name ${JSON.stringify(name)} is invalid: use 1-128 characters from A-Z a-z 0-9 _ - .`,
    )
  }
  if (typeof config.handler !== 'function')
    throw new ToolDefinitionError(`Tool ${name}: handler must be a function`)
  const label = `Tool ${name}`
  let input: PreparedSchema
  let output: PreparedSchema | undefined
  try {
    input = prepareSchema(config.inputSchema ?? NO_PARAMS, 'input', `${label} inputSchema`, compiler)
    output =
      config.outputSchema && prepareSchema(config.outputSchema, 'output', `${label} outputSchema`, compiler)
  } catch (error) {
    throw new ToolDefinitionError((error as Error).message)
  }
  if (input.jsonSchema.type !== 'object') {
    throw new ToolDefinitionError(`${label}: inputSchema must have root type "object"`)
  }
  // Most schemas carry no annotation at all; their JSON text says so without a walk.
  const { params, problems } = input.json.includes('"x-mcp-header"')
    ? scanHeaderParams(input.jsonSchema)
    : NO_HEADER_PARAMS
  if (problems.length > 0) throw new ToolDefinitionError(`${label}: ${problems.join('; ')}`)
  const shape = [...baseProblems(config), ...toolAnnotationProblems(config.annotations)]
  if (shape.length > 0) throw new ToolDefinitionError(`${label}: ${shape.join('; ')}`)
  if (config.timeoutMs !== undefined && !(config.timeoutMs > 0)) {
    throw new ToolDefinitionError(`${label}: timeoutMs must be a positive number`)
  }
  const meta = toolMetaWithUi(config.ui, config._meta, label)

  const wire = { name } as Tool
  if (config.title !== undefined) wire.title = config.title
  if (config.description !== undefined) wire.description = config.description
  if (config.icons !== undefined) wire.icons = config.icons
  wire.inputSchema = input.jsonSchema as Tool['inputSchema']
  if (output) wire.outputSchema = output.jsonSchema
  if (config.annotations !== undefined) wire.annotations = config.annotations
  if (meta !== undefined) wire._meta = meta
  return {
    key: name,
    name,
    wire,
    input,
    output,
    headerParams: params,
    scopes: config.scopes ?? [],
    timeoutMs: config.timeoutMs,
    task: compileTask(config.task, label),
    handler: config.handler as CompiledTool['handler'],
  }
}

const HOUR = 3_600_000

function compileTask(
  task: ToolConfig<undefined, undefined>['task'],
  label: string,
): Required<TaskOptions> | undefined {
  if (task === undefined) return undefined
  const options = typeof task === 'string' ? { support: task } : task
  if (options.support !== 'optional' && options.support !== 'required')
    throw new ToolDefinitionError(`${label}: task support must be 'optional' or 'required'`)
  const ttlMs = options.ttlMs ?? HOUR
  const pollIntervalMs = options.pollIntervalMs ?? 1000
  // Integers on the wire (extensions/tasks §Tasks: ttlMs, pollIntervalMs are milliseconds).
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new ToolDefinitionError(`${label}: task ttlMs must be a positive integer`)
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs <= 0)
    throw new ToolDefinitionError(`${label}: task pollIntervalMs must be a positive integer`)
  const start = options.start ?? 'immediate'
  if (start !== 'immediate' && start !== 'explicit')
    throw new ToolDefinitionError(`${label}: task start must be 'immediate' or 'explicit'`)
  return { support: options.support, ttlMs, pollIntervalMs, start }
}
