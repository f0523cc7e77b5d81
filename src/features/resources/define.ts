/** `defineResource` and `defineResourceTemplate`: readable data by URI, checked and compiled once. */
import type { RequestContext } from '../../protocol/context.js'
import type { Annotations, CacheScope, Icon, MetaObject, ResourceContents } from '../../wire/types.js'
import { type McpError, notFound } from '../../wire/errors.js'
import type { CatalogItem } from '../catalog.js'
import { annotationProblems, baseProblems, cacheScopeProblem } from '../metadata.js'
import type { Completer } from '../prompts/define.js'
import { compileUriTemplate, type UriTemplate, type UriTemplateError } from './uri-template.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/** What a read may return: text, bytes, one contents object, or several (uri/mimeType default to the resource's). */
export type ResourceRead =
  string | Uint8Array | Partial<ResourceContents> | readonly Partial<ResourceContents>[]

interface ResourceBase {
  name: string
  title?: string
  description?: string
  mimeType?: string
  icons?: Icon[]
  annotations?: Annotations
  _meta?: MetaObject
  /** Cache hints for `resources/read` of this resource (default: the server's). */
  cache?: ReadCacheHints
}

/**
 * What `defineResource` takes: one resource's URI, metadata and reader.
 *
 * @example
 * ```ts
 * const readme = defineResource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', read: () => text })
 * ```
 */
export interface ResourceConfig extends ResourceBase {
  uri: string
  size?: number
  read: (ctx: RequestContext) => ResourceRead | Promise<ResourceRead>
}

/**
 * What `defineResourceTemplate` takes: a URI template, metadata and a reader of matching URIs.
 *
 * @example
 * ```ts
 * const page = defineResourceTemplate({
 *   uriTemplate: 'wiki://{slug}',
 *   name: 'page',
 *   read: (uri, { slug }) => pages.get(slug) ?? Promise.reject(resourceNotFound(uri)),
 * })
 * ```
 */
export interface ResourceTemplateConfig extends ResourceBase {
  uriTemplate: string
  /** Suggests values per template variable (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>
  read: (
    uri: string,
    variables: Record<string, string>,
    ctx: RequestContext,
  ) => ResourceRead | Promise<ResourceRead>
}

/** Per-resource cache hints for `resources/read`. */
export interface ReadCacheHints {
  ttlMs?: number
  scope?: CacheScope
}

const RESOURCE = Symbol.for('toolwire.resource')
const TEMPLATE = Symbol.for('toolwire.resourceTemplate')

export interface ResourceDefinition {
  readonly [RESOURCE]: true
  readonly config: ResourceConfig
}
export interface ResourceTemplateDefinition {
  readonly [TEMPLATE]: true
  readonly config: ResourceTemplateConfig
}

/**
 * Defines a resource at a fixed URI.
 *
 * @example
 * ```ts
 * const readme = defineResource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', read: () => text })
 * ```
 */
export const defineResource = (config: ResourceConfig): ResourceDefinition => ({ [RESOURCE]: true, config })
/**
 * Defines a family of resources by an RFC 6570 URI template; `read` gets the matched variables.
 *
 * @example
 * ```ts
 * const page = defineResourceTemplate({
 *   uriTemplate: 'docs://page/{slug}',
 *   name: 'page',
 *   read: (uri, { slug }) => pages.get(slug) ?? Promise.reject(resourceNotFound(uri)),
 * })
 * ```
 */
export const defineResourceTemplate = (config: ResourceTemplateConfig): ResourceTemplateDefinition => ({
  [TEMPLATE]: true,
  config,
})
export const isResourceDefinition = (value: unknown): value is ResourceDefinition =>
  typeof value === 'object' && value !== null && RESOURCE in value
export const isResourceTemplateDefinition = (value: unknown): value is ResourceTemplateDefinition =>
  typeof value === 'object' && value !== null && TEMPLATE in value

/**
 * Throw from a read when the URI names nothing: -32602 with `data.uri`, never empty contents.
 *
 * @example
 * ```ts
 * const page = defineResourceTemplate({
 *   uriTemplate: 'wiki://{slug}',
 *   name: 'page',
 *   read: (uri, { slug }) => pages.get(slug) ?? Promise.reject(resourceNotFound(uri)),
 * })
 * ```
 */
export const resourceNotFound = (uri: string): McpError => notFound(`Resource not found: ${uri}`, { uri })

/**
 * An invalid resource or resource template definition, thrown by `defineResource`, `defineResourceTemplate` and `defineServer`.
 *
 * @example
 * ```ts
 * try {
 *   defineResource({ uri: 'not a uri', name: 'readme', read: () => '…' })
 * } catch (error) {
 *   if (error instanceof ResourceDefinitionError) console.error(error.message)
 * }
 * ```
 */
export class ResourceDefinitionError extends ToolwireError {
  override readonly name = 'ResourceDefinitionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_RESOURCE_DEFINITION'
  }
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface CompiledResource extends CatalogItem {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly cache: ReadCacheHints | undefined
  readonly read: ResourceConfig['read']
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface CompiledTemplate extends CatalogItem {
  readonly template: UriTemplate
  readonly mimeType: string | undefined
  readonly cache: ReadCacheHints | undefined
  readonly complete: Readonly<Record<string, Completer>>
  readonly read: ResourceTemplateConfig['read']
}

function baseWire(config: ResourceBase, label: string): Record<string, unknown> {
  if (typeof config.name !== 'string' || config.name === '')
    throw new ResourceDefinitionError(`${label}: name must be a non-empty string`)
  if (typeof (config as { read?: unknown }).read !== 'function')
    throw new ResourceDefinitionError(`${label}: read must be a function`)
  const problems = [...baseProblems(config), ...annotationProblems(config.annotations)]
  if (config.mimeType !== undefined && typeof config.mimeType !== 'string')
    problems.push('mimeType must be a string')
  const scope = cacheScopeProblem(config.cache?.scope, 'cache.scope')
  if (scope) problems.push(scope)
  if (problems.length > 0) throw new ResourceDefinitionError(`${label}: ${problems.join('; ')}`)
  const wire: Record<string, unknown> = { name: config.name }
  if (config.title !== undefined) wire.title = config.title
  if (config.description !== undefined) wire.description = config.description
  if (config.mimeType !== undefined) wire.mimeType = config.mimeType
  if (config.icons !== undefined) wire.icons = config.icons
  if (config.annotations !== undefined) wire.annotations = config.annotations
  return wire
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

export function compileResource(definition: ResourceDefinition): CompiledResource {
  const { config } = definition
  if (typeof config.uri !== 'string' || !SCHEME.test(config.uri))
    throw new ResourceDefinitionError(`Resource ${JSON.stringify(config.uri)}: uri must be an absolute URI`)
  const wire: Record<string, unknown> = { uri: config.uri, ...baseWire(config, `Resource ${config.uri}`) }
  if (config.size !== undefined) wire.size = config.size
  if (config._meta !== undefined) wire._meta = config._meta
  return {
    key: config.uri,
    uri: config.uri,
    wire,
    mimeType: config.mimeType,
    cache: config.cache,
    read: config.read,
  }
}

export function compileTemplate(definition: ResourceTemplateDefinition): CompiledTemplate {
  const { config } = definition
  const label = `Resource template ${JSON.stringify(config.uriTemplate)}`
  let template: UriTemplate
  try {
    template = compileUriTemplate(config.uriTemplate)
  } catch (error) {
    throw new ResourceDefinitionError(`${label}: ${(error as UriTemplateError).message}`)
  }
  if (!SCHEME.test(config.uriTemplate))
    throw new ResourceDefinitionError(`${label}: must start with a scheme`)
  const complete = config.complete ?? {}
  for (const name of Object.keys(complete)) {
    if (!template.variables.includes(name))
      throw new ResourceDefinitionError(`${label}: completer for unknown variable ${name}`)
  }
  const wire: Record<string, unknown> = { uriTemplate: config.uriTemplate, ...baseWire(config, label) }
  if (config._meta !== undefined) wire._meta = config._meta
  return {
    key: config.uriTemplate,
    template,
    wire,
    mimeType: config.mimeType,
    cache: config.cache,
    complete,
    read: config.read,
  }
}
