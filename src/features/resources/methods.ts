/** `resources/list`, `resources/templates/list` and `resources/read` (exact URIs first, then templates). */
import type { RequestContext } from '../../protocol/context.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { InputRequired } from '../../protocol/mrtr/inputs.js'
import { internalError, invalidParams, isAnswerError } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import { bytesToBase64 } from '../../wire/base64.js'
import type { CacheScope, ResourceContents } from '../../wire/types.js'
import type { Catalog } from '../catalog.js'
import type { Report } from '../prompts/methods.js'
import {
  type CompiledResource,
  type CompiledTemplate,
  type ReadCacheHints,
  type ResourceDefinition,
  resourceNotFound,
  type ResourceTemplateDefinition,
} from './define.js'

export interface ResourceSet {
  readonly resources: Catalog<ResourceDefinition, CompiledResource>
  readonly templates: Catalog<ResourceTemplateDefinition, CompiledTemplate>
}

export interface ReadDefaults {
  readonly ttlMs: number
  readonly scope: CacheScope
}

export function resourceMethods(
  set: ResourceSet,
  defaults: ReadDefaults,
  report: Report,
): Record<string, MethodSpec> {
  return {
    'resources/list': { handler: (ctx) => set.resources.page(ctx.params.cursor) },
    'resources/templates/list': { handler: (ctx) => set.templates.page(ctx.params.cursor) },
    'resources/read': { nameParam: 'uri', handler: (ctx) => readResource(set, defaults, report, ctx) },
  }
}

/** The first template that produces `uri`, with its variables. */
export function findTemplate(
  templates: Catalog<ResourceTemplateDefinition, CompiledTemplate>,
  uri: string,
): { template: CompiledTemplate; variables: Record<string, string> } | undefined {
  for (const template of templates.enabled()) {
    const variables = template.template.match(uri)
    if (variables) return { template, variables }
  }
  return undefined
}

function normalizeContents(
  returned: unknown,
  uri: string,
  mimeType: string | undefined,
): ResourceContents[] | string {
  const withDefaults = (contents: Record<string, unknown>): Record<string, unknown> => ({
    uri,
    ...(mimeType !== undefined && { mimeType }),
    ...contents,
  })
  let list: unknown[]
  if (typeof returned === 'string') list = [withDefaults({ text: returned })]
  else if (returned instanceof Uint8Array) list = [withDefaults({ blob: bytesToBase64(returned) })]
  else if (Array.isArray(returned))
    list = returned.map((item) => (isRecord(item) ? withDefaults(item) : item))
  else if (isRecord(returned)) list = [withDefaults(returned)]
  else return 'read must return text, bytes or resource contents'
  if (list.length === 0)
    return 'read returned no contents (a missing resource must throw, not return nothing)'
  for (const [index, item] of list.entries()) {
    if (!isRecord(item) || typeof item.uri !== 'string') return `contents[${index}] needs a uri`
    if (typeof item.text !== 'string' && typeof item.blob !== 'string')
      return `contents[${index}] needs text or a base64 blob`
  }
  return list as ResourceContents[]
}

async function readResource(
  set: ResourceSet,
  defaults: ReadDefaults,
  report: Report,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const { uri } = ctx.params
  if (typeof uri !== 'string' || uri === '')
    throw invalidParams('Invalid params: resources/read needs a string uri')
  const resource = set.resources.get(uri)
  const found = resource ? undefined : findTemplate(set.templates, uri)
  const source = resource ?? found?.template
  if (!source) throw resourceNotFound(uri)
  let returned: unknown
  try {
    returned = found ? await found.template.read(uri, found.variables, ctx) : await resource?.read(ctx)
  } catch (error) {
    if (isAnswerError(error) || error instanceof InputRequired) throw error
    const ref = report(`resource ${uri} read failed`, error)
    throw internalError(`Internal error: reading ${uri} failed (ref ${ref})`, { correlationId: ref })
  }
  const contents = normalizeContents(returned, uri, source.mimeType)
  if (typeof contents === 'string') {
    const ref = report(`resource ${uri} returned an invalid result: ${contents}`, new Error(contents))
    throw internalError(`Internal error: resource ${uri} produced an invalid result (ref ${ref})`, {
      correlationId: ref,
    })
  }
  const cache: ReadCacheHints = source.cache ?? {}
  return {
    resultType: 'complete',
    contents,
    ttlMs: cache.ttlMs ?? defaults.ttlMs,
    cacheScope: cache.scope ?? defaults.scope,
  }
}
