/** `definePrompt`: a prompt template with declared string arguments, checked and compiled at definition time. */
import type { RequestContext } from '../../protocol/context.js'
import type { ContentBlock, Icon, MetaObject } from '../../wire/types.js'
import type { CatalogItem } from '../catalog.js'
import { baseProblems } from '../metadata.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/** Suggests values for an argument being typed (`completion/complete`). */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; ctx: RequestContext },
) => readonly string[] | Promise<readonly string[]>

export interface PromptArgumentConfig {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly required?: boolean
  readonly complete?: Completer
}

export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

/** What a prompt handler may return: text (one user message), messages, or a full result. */
export type PromptReturn = string | PromptMessage[] | { description?: string; messages: PromptMessage[] }

type ArgsOf<A extends readonly PromptArgumentConfig[]> = {
  [P in A[number] as P['name']]: P['required'] extends true ? string : string | undefined
}

/**
 * What `definePrompt` takes: the prompt's name, arguments and handler.
 *
 * @example
 * ```ts
 * const review = definePrompt({
 *   name: 'review',
 *   arguments: [{ name: 'code', required: true }],
 *   handler: ({ code }) => `Review this code:\n${code}`,
 * })
 * ```
 */
export interface PromptConfig<A extends readonly PromptArgumentConfig[]> {
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  _meta?: MetaObject
  arguments?: A
  /** Builds the messages; may ask the client for input (`ctx.input`) like a tool. */
  handler: (args: ArgsOf<A>, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>
}

const PROMPT = Symbol.for('toolwire.prompt')

export interface PromptDefinition {
  readonly [PROMPT]: true
  readonly config: PromptConfig<readonly PromptArgumentConfig[]>
}

/**
 * Defines a prompt; its arguments are checked and completed from `arguments`.
 *
 * @example
 * ```ts
 * const review = definePrompt({
 *   name: 'review',
 *   arguments: [{ name: 'file', required: true }],
 *   handler: ({ file }) => `Review ${file} for bugs.`,
 * })
 * ```
 */
export function definePrompt<const A extends readonly PromptArgumentConfig[]>(
  config: PromptConfig<A>,
): PromptDefinition {
  return { [PROMPT]: true, config: config as unknown as PromptDefinition['config'] }
}

export const isPromptDefinition = (value: unknown): value is PromptDefinition =>
  typeof value === 'object' && value !== null && PROMPT in value

/**
 * An invalid prompt definition, thrown by `definePrompt` and `defineServer`.
 *
 * @example
 * ```ts
 * try {
 *   definePrompt({ name: '', handler: () => 'hi' })
 * } catch (error) {
 *   if (error instanceof PromptDefinitionError) console.error(error.message)
 * }
 * ```
 */
export class PromptDefinitionError extends ToolwireError {
  override readonly name = 'PromptDefinitionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_PROMPT_DEFINITION'
  }
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface CompiledPrompt extends CatalogItem {
  readonly name: string
  readonly arguments: readonly PromptArgumentConfig[]
  readonly required: readonly string[]
  readonly handler: (args: Record<string, string | undefined>, ctx: RequestContext) => unknown
}

export function compilePrompt(definition: PromptDefinition): CompiledPrompt {
  const config = definition.config
  const { name } = config
  if (typeof name !== 'string' || name === '' || name.length > 256)
    throw new PromptDefinitionError(`Prompt name ${JSON.stringify(name)} must be 1-256 characters`)
  if (typeof config.handler !== 'function')
    throw new PromptDefinitionError(`Prompt ${name}: handler must be a function`)
  const args = config.arguments ?? []
  const seen = new Set<string>()
  for (const arg of args) {
    if (typeof arg.name !== 'string' || arg.name === '' || seen.has(arg.name))
      throw new PromptDefinitionError(`Prompt ${name}: argument names must be unique non-empty strings`)
    seen.add(arg.name)
  }
  const problems = baseProblems(config)
  args.forEach((arg, index) => {
    for (const field of ['title', 'description'] as const) {
      if (arg[field] !== undefined && typeof arg[field] !== 'string')
        problems.push(`arguments[${index}].${field} must be a string`)
    }
    if (arg.required !== undefined && typeof arg.required !== 'boolean')
      problems.push(`arguments[${index}].required must be true or false`)
  })
  if (problems.length > 0) throw new PromptDefinitionError(`Prompt ${name}: ${problems.join('; ')}`)
  const wire: Record<string, unknown> = { name }
  if (config.title !== undefined) wire.title = config.title
  if (config.description !== undefined) wire.description = config.description
  if (config.icons !== undefined) wire.icons = config.icons
  if (args.length > 0) {
    wire.arguments = args.map((arg) => {
      const out: Record<string, unknown> = { name: arg.name }
      if (arg.title !== undefined) out.title = arg.title
      if (arg.description !== undefined) out.description = arg.description
      if (arg.required !== undefined) out.required = arg.required
      return out
    })
  }
  if (config._meta !== undefined) wire._meta = config._meta
  return {
    key: name,
    name,
    wire,
    arguments: args,
    required: args.filter((arg) => arg.required).map((arg) => arg.name),
    handler: config.handler as CompiledPrompt['handler'],
  }
}
