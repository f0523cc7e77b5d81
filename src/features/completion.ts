/** `completion/complete`: argument suggestions for prompts and resource templates (at most 100 per answer). */
import type { RequestContext } from '../protocol/context.js'
import type { MethodSpec } from '../protocol/dispatcher.js'
import { invalidParams, notFound } from '../wire/errors.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { Catalog } from './catalog.js'
import type { CompiledPrompt, Completer, PromptDefinition } from './prompts/define.js'
import type { CompiledTemplate, ResourceTemplateDefinition } from './resources/define.js'

const MAX_VALUES = 100

export function completionMethods(
  prompts: Catalog<PromptDefinition, CompiledPrompt>,
  templates: Catalog<ResourceTemplateDefinition, CompiledTemplate>,
): Record<string, MethodSpec> {
  return { 'completion/complete': { handler: (ctx) => complete(prompts, templates, ctx) } }
}

function completerFor(
  prompts: Catalog<PromptDefinition, CompiledPrompt>,
  templates: Catalog<ResourceTemplateDefinition, CompiledTemplate>,
  ref: Record<string, unknown>,
  argument: string,
): Completer | undefined {
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw invalidParams('Invalid params: ref/prompt needs a string name')
    const prompt = prompts.get(ref.name)
    if (!prompt) throw notFound(`Unknown prompt: ${ref.name}`, { name: ref.name })
    const declared = prompt.arguments.find((arg) => arg.name === argument)
    if (!declared) throw invalidParams(`Invalid params: prompt ${ref.name} has no argument ${argument}`)
    return declared.complete
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalidParams('Invalid params: ref/resource needs a string uri')
    const template = templates.get(ref.uri)
    if (!template) throw notFound(`Unknown resource template: ${ref.uri}`, { uri: ref.uri })
    if (!template.template.variables.includes(argument))
      throw invalidParams(`Invalid params: template ${ref.uri} has no variable ${argument}`)
    return template.complete[argument]
  }
  throw invalidParams('Invalid params: ref.type must be ref/prompt or ref/resource')
}

async function complete(
  prompts: Catalog<PromptDefinition, CompiledPrompt>,
  templates: Catalog<ResourceTemplateDefinition, CompiledTemplate>,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const { ref, argument, context } = ctx.params
  if (!isRecord(ref)) throw invalidParams('Invalid params: completion/complete needs a ref object')
  if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw invalidParams('Invalid params: argument needs string name and value')
  const previous = isRecord(context) && isRecord(context.arguments) ? context.arguments : {}
  const known = Object.create(null) as Record<string, string>
  for (const [key, value] of Object.entries(previous)) if (typeof value === 'string') known[key] = value
  const completer = completerFor(prompts, templates, ref, argument.name)
  const values = completer ? [...(await completer(argument.value, { arguments: known, ctx }))] : []
  if (!values.every((value) => typeof value === 'string'))
    throw new TypeError('a completer must return strings')
  return {
    resultType: 'complete',
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  }
}
