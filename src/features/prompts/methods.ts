/** `prompts/list` and `prompts/get`: argument checks, the handler (which may ask for input), result checks. */
import type { RequestContext } from '../../protocol/context.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { InputRequired } from '../../protocol/mrtr/inputs.js'
import { internalError, invalidParams, isAnswerError, notFound } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type { Catalog } from '../catalog.js'
import { contentProblem } from '../tools/result.js'
import { annotationProblems } from '../../wire/annotations.js'
import type { CompiledPrompt, PromptDefinition, PromptMessage } from './define.js'

/** Logs an internal failure and returns its correlation id. */
export type Report = (what: string, error: unknown) => string

export function promptMethods(
  prompts: Catalog<PromptDefinition, CompiledPrompt>,
  report: Report,
): Record<string, MethodSpec> {
  return {
    'prompts/list': { handler: (ctx) => prompts.page(ctx.params.cursor) },
    'prompts/get': { nameParam: 'name', handler: (ctx) => getPrompt(prompts, report, ctx) },
  }
}

/** Checks `arguments` against the prompt's declared ones: strings only, required present, no strangers. */
export function checkPromptArguments(prompt: CompiledPrompt, args: unknown): Record<string, string> {
  if (args !== undefined && !isRecord(args))
    throw invalidParams('Invalid params: arguments must be an object of strings')
  const values = (args ?? {}) as Record<string, unknown>
  const declared = new Set(prompt.arguments.map((arg) => arg.name))
  for (const [key, value] of Object.entries(values)) {
    if (!declared.has(key))
      throw invalidParams(`Invalid params: prompt ${prompt.name} has no argument ${key}`)
    if (typeof value !== 'string')
      throw invalidParams(`Invalid params: argument ${key} of prompt ${prompt.name} must be a string`)
  }
  const missing = prompt.required.filter((name) => values[name] === undefined)
  if (missing.length > 0)
    throw invalidParams(`Invalid params: prompt ${prompt.name} needs the arguments: ${missing.join(', ')}`)
  return values as Record<string, string>
}

async function getPrompt(
  prompts: Catalog<PromptDefinition, CompiledPrompt>,
  report: Report,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const { name } = ctx.params
  if (typeof name !== 'string') throw invalidParams('Invalid params: prompts/get needs a string name')
  const prompt = prompts.get(name)
  if (!prompt) throw notFound(`Unknown prompt: ${name}`, { name })
  const args = checkPromptArguments(prompt, ctx.params.arguments)
  let returned: unknown
  try {
    returned = await prompt.handler(args, ctx)
  } catch (error) {
    if (isAnswerError(error) || error instanceof InputRequired) throw error
    const ref = report(`prompt ${prompt.name} threw`, error)
    throw internalError(`Internal error: prompt ${prompt.name} failed (ref ${ref})`, { correlationId: ref })
  }
  return { resultType: 'complete', ...normalizePrompt(prompt, returned, report) }
}

function normalizePrompt(
  prompt: CompiledPrompt,
  returned: unknown,
  report: Report,
): { description?: string; messages: PromptMessage[] } {
  const result: { description?: string; messages: unknown } =
    typeof returned === 'string'
      ? { messages: [{ role: 'user', content: { type: 'text', text: returned } }] }
      : Array.isArray(returned)
        ? { messages: returned }
        : isRecord(returned)
          ? (returned as { messages: unknown })
          : { messages: undefined }
  const problem = !Array.isArray(result.messages)
    ? 'messages must be an array'
    : result.messages
        .map((message: unknown, index) =>
          !isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')
            ? `messages[${index}] needs role user or assistant`
            : (contentProblem(message.content, index) ??
              annotationProblems(
                (message.content as { annotations?: unknown }).annotations,
                `messages[${index}].content.annotations`,
              )[0]),
        )
        .find((found) => found !== undefined)
  if (problem) {
    const ref = report(`prompt ${prompt.name} returned an invalid result: ${problem}`, new Error(problem))
    throw internalError(`Internal error: prompt ${prompt.name} produced an invalid result (ref ${ref})`, {
      correlationId: ref,
    })
  }
  return result as { description?: string; messages: PromptMessage[] }
}
