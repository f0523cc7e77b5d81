/**
 * `fromOpenAPI`: an OpenAPI document's operations as tool definitions, one tool per operation, each
 * checked by the same definition-time checks as a hand-written tool (compile.ts) before it is returned.
 */
import { defineTool, type ToolDefinition } from '../features/tools/define.js'
import { compileTool } from '../features/tools/compile.js'
import { ToolError } from '../features/tools/errors.js'
import { SchemaCompiler } from '../schema/json-schema.js'
import { jsonSchema } from '../schema/standard.js'
import { isPrivateAddress } from '../wire/private-address.js'
import type { ToolAnnotations } from '../wire/types.js'
import type { OpenAPIAuth } from './auth.js'
import { callOperation, type CallSettings, type OutputCheck } from './call.js'
import type { DocumentLimits } from '../wire/document-loader.js'
import { isNode, loadDocument, type LoadedDocument, type Node } from './document.js'
import { OpenAPIError, type OpenAPIProblem } from './errors.js'
import { buildInput, isJsonMediaType } from './input.js'
import {
  listOperations,
  matches,
  nameOperations,
  type Operation,
  type OperationFilter,
  type Rename,
} from './operations.js'
import { type BuiltRequest, buildRequest } from './request.js'
import { deref, OperationProblem, SchemaConverter } from './schema.js'
import { ServerJudge } from './server-reach.js'
import { httpUrl, pathKeyProblem } from './url.js'

/**
 * How `fromOpenAPI` makes and calls tools.
 *
 * @example
 * ```ts
 * const options: OpenAPIOptions = {
 *   baseUrl: 'https://api.example.com/v1',
 *   auth: { type: 'bearer', token: process.env.API_TOKEN ?? '' },
 *   include: { tags: ['pets'] },
 *   exclude: { methods: ['delete'] },
 *   rename: { listPets: 'pets_list' },
 * }
 * ```
 */
export interface OpenAPIOptions {
  /** Where calls go; default: the document's first `servers` URL (Swagger 2.0: `schemes`, `host`, `basePath`). */
  readonly baseUrl?: string
  /** Sent with every request to the API's origin (never to another origin a redirect points at). */
  readonly headers?: Readonly<Record<string, string>>
  readonly auth?: OpenAPIAuth
  /** Only operations that match become tools. */
  readonly include?: OperationFilter
  /** Operations that match do not become tools. */
  readonly exclude?: OperationFilter
  /** Tool names by operationId or `"GET /path"`, or a function; default: the operationId, made to fit. */
  readonly rename?: Rename
  /** Put before every generated name (not before the ones `rename` gives). */
  readonly namePrefix?: string
  /** The largest response body read, in bytes (default 1 MiB): a larger one is a tool error. */
  readonly maxResponseBytes?: number
  /** How much of a non-2xx response's body the tool error quotes (default 1000 characters). */
  readonly maxErrorBodyChars?: number
  /** Redirects followed per call (default 5). */
  readonly maxRedirects?: number
  /** The tools' `timeoutMs` (default: the server's tool timeout). */
  readonly timeoutMs?: number
  /** The fetch calls go through (default: the global `fetch`). */
  readonly fetch?: typeof fetch
  /**
   * Load the document from a loopback, private, link-local or otherwise non-public address (default false):
   * for a document served on this machine or the local network on purpose. Every address is judged after
   * DNS, each redirect hop too. It also lets a remote document's `servers` (without `baseUrl`) name such an
   * address: otherwise their operations are refused at load, and a call's redirect to one is not followed.
   */
  readonly allowPrivate?: boolean
  /** Let a local document's `$ref`s read files outside the document's own folder (default false). */
  readonly allowFilesOutside?: boolean
  /**
   * Which addresses count as private (default `isPrivateAddress` from `toolwire/client`), for loading the
   * document and for judging a remote document's `servers`.
   */
  readonly isPrivateAddress?: (address: string) => boolean
  /** Bounds on reading the document and what its `$ref`s bring in (defaults in docs/security.md). */
  readonly documentLimits?: Partial<DocumentLimits>
  /**
   * Refuse the whole document when any operation cannot become a valid tool, or two share an operationId or
   * a name (default false: such an operation is skipped, or named otherwise, with a warning).
   */
  readonly strict?: boolean
  /**
   * A 2xx answer that does not match the documented response schema is a tool error (default false: it is
   * returned as data, with the mismatch under `_meta["dev.toolwire/openapi"].responseMismatch`).
   */
  readonly strictResponses?: boolean
  /** Told each operation skipped (`skipped: true`) or named otherwise than asked (default: `console.warn`). */
  readonly onWarning?: (warning: OpenAPIWarning) => void
}

/**
 * What `fromOpenAPI` tolerated in a document: an operation it left out (`skipped`), or one it named from
 * its method and path or with a suffix because its operationId or name was taken.
 *
 * @example
 * ```ts
 * const tools = await fromOpenAPI('./api.yaml', {
 *   onWarning: (warning: OpenAPIWarning) => console.error(`${warning.operation}: ${warning.reason}`),
 * })
 * ```
 */
export interface OpenAPIWarning extends OpenAPIProblem {
  readonly skipped: boolean
}

export const OPENAPI_DEFAULTS = { maxResponseBytes: 1_048_576, maxErrorBodyChars: 1000, maxRedirects: 5 }

/** A generated tool and the operation it calls, for listings (`toolwire openapi`). */
export interface OpenAPITool {
  readonly tool: ToolDefinition
  readonly method: string
  readonly path: string
  readonly operationId: string | undefined
}

/**
 * Turns an OpenAPI document (OpenAPI 3.0, 3.1 or Swagger 2.0: a parsed object, a file path or an http(s)
 * URL) into tool definitions, one per operation, that call the API with `fetch`. An operation that cannot
 * become a valid tool is skipped with a warning naming it and why (`onWarning`); with `strict`, it makes
 * the call throw an `OpenAPIError` naming every such operation. A document that cannot be read, or names
 * no server URL when no `baseUrl` is given, always throws.
 *
 * @example
 * ```ts
 * import { defineServer } from 'toolwire'
 * import { fromOpenAPI } from 'toolwire/openapi'
 *
 * const tools = await fromOpenAPI('./petstore.yaml', { baseUrl: 'http://127.0.0.1:8080' })
 * const server = defineServer({ name: 'petstore', version: '1.0.0', tools })
 * ```
 */
export async function fromOpenAPI(
  document: string | URL | object,
  options: OpenAPIOptions = {},
): Promise<ToolDefinition[]> {
  return (await openAPITools(document, options)).tools.map((entry) => entry.tool)
}

/** What `openAPITools` makes: the tools with their operations, and the document's title and version. */
export interface OpenAPIBuild {
  readonly tools: readonly OpenAPITool[]
  readonly title: string | undefined
  readonly version: string | undefined
  readonly baseUrl: string | undefined
  /** Operations left out, each with the reason (empty with `strict`, which throws instead). */
  readonly skipped: readonly OpenAPIProblem[]
  /** Everything tolerated: the skipped operations and the ones named otherwise than asked. */
  readonly warnings: readonly OpenAPIWarning[]
}

/** `fromOpenAPI` with each tool's operation beside it (for `toolwire openapi` and `serve --openapi`). */
export async function openAPITools(
  source: string | URL | object,
  options: OpenAPIOptions = {},
): Promise<OpenAPIBuild> {
  checkOptions(options)
  const loaded = await loadDocument(source, {
    allowPrivate: options.allowPrivate === true,
    allowFilesOutside: options.allowFilesOutside === true,
    ...(options.isPrivateAddress && { isPrivateAddress: options.isPrivateAddress }),
    ...(options.documentLimits && { limits: options.documentLimits }),
  })
  const { document, version } = loaded
  const strict = options.strict === true
  const problems: OpenAPIProblem[] = []
  const notes: OpenAPIProblem[] = []
  const baseUrl = options.baseUrl ?? documentBaseUrl(loaded)
  if (baseUrl === undefined)
    throw new OpenAPIError([
      {
        operation: 'document',
        reason: 'names no server URL: pass the baseUrl option (--base-url on the command line)',
      },
    ])
  const operations = listOperations(document).filter(
    (operation) =>
      (!options.include || matches(operation, options.include)) &&
      !(options.exclude && matches(operation, options.exclude)),
  )
  const named = nameOperations(
    operations,
    options.rename,
    options.namePrefix ?? '',
    problems,
    strict ? undefined : notes,
  )
  // A remote document's servers are judged (server-reach.ts); a baseUrl, a file or an object is the user's.
  const judge =
    loaded.url !== undefined && options.baseUrl === undefined && options.allowPrivate !== true
      ? new ServerJudge(options.isPrivateAddress, options.documentLimits?.timeoutMs)
      : undefined
  const servers = new Map(
    named.map(({ operation }) => [operation, operationBaseUrl(loaded, operation) ?? baseUrl] as const),
  )
  const refusals = judge === undefined ? new Map<string, string>() : await judge.refusals(servers.values())
  const settings: CallSettings = {
    ...(judge !== undefined && { isPrivateHop: options.isPrivateAddress ?? isPrivateAddress }),
    headers: options.headers ?? {},
    auth: options.auth,
    maxResponseBytes: options.maxResponseBytes ?? OPENAPI_DEFAULTS.maxResponseBytes,
    maxErrorBodyChars: options.maxErrorBodyChars ?? OPENAPI_DEFAULTS.maxErrorBodyChars,
    maxRedirects: options.maxRedirects ?? OPENAPI_DEFAULTS.maxRedirects,
    fetch: options.fetch ?? ((request) => fetch(request)),
    strictResponses: options.strictResponses === true,
  }
  const converters = {
    request: new SchemaConverter(document, version, 'request'),
    response: new SchemaConverter(document, version, 'response'),
  }
  const compiler = new SchemaCompiler()
  const tools: OpenAPITool[] = []
  for (const { operation, name } of named) {
    const refused = refusals.get(servers.get(operation) ?? '')
    if (refused !== undefined) {
      problems.push({ operation: operation.label, reason: refused })
      continue
    }
    try {
      const output: { check?: OutputCheck } = {}
      const server = options.baseUrl ?? servers.get(operation) ?? baseUrl
      const tool = makeTool(loaded, operation, name, converters, settings, server, options, output)
      const compiled = compileTool(tool, compiler)
      const validator = compiled.output
      if (validator) output.check = (value) => validator.validateAsync(value)
      tools.push({
        tool: settings.strictResponses ? tool : withoutOutputSchema(tool),
        method: operation.method,
        path: operation.path,
        operationId: operation.operationId,
      })
    } catch (error) {
      if (!(error instanceof Error)) throw error
      problems.push({ operation: operation.label, reason: error.message })
    }
  }
  if (strict && problems.length > 0) throw new OpenAPIError(problems)
  const warnings: OpenAPIWarning[] = [
    ...problems.map((problem) => ({ ...problem, skipped: true })),
    ...notes.map((note) => ({ ...note, skipped: false })),
  ]
  // An operation left out silently would look like a document without it: said somewhere unless redirected.
  const warn =
    options.onWarning ??
    ((warning: OpenAPIWarning) =>
      // eslint-disable-next-line no-console
      console.warn(
        `toolwire openapi: ${warning.operation}: ${warning.skipped ? 'skipped: ' : ''}${warning.reason}`,
      ))
  for (const warning of warnings) warn(warning)
  const info = isNode(document.info) ? document.info : {}
  return {
    tools,
    title: typeof info.title === 'string' ? info.title : undefined,
    version: typeof info.version === 'string' ? info.version : undefined,
    baseUrl,
    skipped: problems,
    warnings,
  }
}

/**
 * The tool as published when answers may drift: server/tools §Output Schema says a server MUST send
 * structured results that conform to a declared `outputSchema` (and SDK clients refuse a result without
 * one), so a tool that returns an answer the document does not describe as data cannot declare it. The
 * documented schema still checks each answer (`callOperation`); one that conforms is sent as
 * `structuredContent`.
 */
function withoutOutputSchema(tool: ToolDefinition): ToolDefinition {
  const { outputSchema: _documented, ...config } = tool.config
  return { ...tool, config }
}

function checkOptions(options: OpenAPIOptions): void {
  for (const key of ['maxResponseBytes', 'maxErrorBodyChars', 'maxRedirects'] as const) {
    const value = options[key]
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new TypeError(`${key} must be an integer >= 0`)
  }
  for (const [key, value] of Object.entries(options.documentLimits ?? {})) {
    const least = key === 'maxRedirects' ? 0 : 1
    if (value !== undefined && !(Number.isInteger(value) && value >= least))
      throw new TypeError(`documentLimits.${key} must be an integer >= ${least}`)
  }
  if (options.baseUrl !== undefined && !/^https?:$/.test(new URL(options.baseUrl).protocol))
    throw new TypeError('baseUrl must be an http(s) URL') // new URL throws for one that is not a URL
}

function makeTool(
  loaded: LoadedDocument,
  operation: Operation,
  name: string,
  converters: { readonly request: SchemaConverter; readonly response: SchemaConverter },
  settings: CallSettings,
  serverUrl: string,
  options: OpenAPIOptions,
  output: { readonly check?: OutputCheck },
): ToolDefinition {
  const { document, version } = loaded
  const pathProblem = pathKeyProblem(operation.path)
  if (pathProblem !== undefined) throw new OperationProblem(pathProblem)
  const { inputSchema, plan } = buildInput(document, version, operation, converters.request)
  for (const match of operation.path.matchAll(/\{([^}]+)\}/g)) {
    if (!plan.parameters.some((binding) => binding.in === 'path' && binding.name === match[1]))
      throw new OperationProblem(`path parameter {${match[1]}} is not declared`)
  }
  const outputSchema = outputSchemaOf(loaded, operation, converters.response)
  const description = descriptionOf(operation)
  const base = httpUrl(serverUrl)
  return defineTool({
    name,
    ...(operation.summary === undefined ? {} : { title: operation.summary }),
    ...(description === undefined ? {} : { description }),
    inputSchema: jsonSchema<Record<string, unknown>>(inputSchema),
    ...(outputSchema === undefined
      ? {}
      : { outputSchema: jsonSchema<Record<string, unknown>>(outputSchema) }),
    annotations: annotationsOf(operation.method),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    handler: (args, context) => {
      let request: BuiltRequest
      try {
        request = buildRequest(base, operation.method, operation.path, plan, args as Record<string, unknown>)
      } catch (error) {
        // A header value with a line break, a URL that does not parse: the caller's arguments, said to the caller.
        if (error instanceof ToolError || !(error instanceof TypeError)) throw error
        throw new ToolError(`Cannot make the request from these arguments: ${error.message}`)
      }
      return callOperation(settings, request, context, output.check)
    },
  })
}

/**
 * server/tools §Tool Annotations: GET, HEAD and OPTIONS read only; PUT and DELETE idempotent (RFC 9110
 * §9.2.2), DELETE destructive. POST and PATCH say nothing but `openWorldHint`, so a client assumes the
 * worst (destructive, not idempotent). Every tool reaches an outside system: `openWorldHint` is true.
 */
function annotationsOf(method: string): ToolAnnotations {
  if (method === 'get' || method === 'head' || method === 'options')
    return { readOnlyHint: true, idempotentHint: true, openWorldHint: true }
  if (method === 'put') return { idempotentHint: true, openWorldHint: true }
  if (method === 'delete') return { destructiveHint: true, idempotentHint: true, openWorldHint: true }
  return { openWorldHint: true }
}

function descriptionOf(operation: Operation): string | undefined {
  const parts = [operation.summary, operation.description].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  )
  if (parts[1] !== undefined && parts[1].startsWith(parts[0] ?? '')) parts.shift()
  if (operation.deprecated) parts.unshift('Deprecated.')
  return parts.length > 0 ? parts.join('\n\n') : undefined
}

/** The schema of the 2xx JSON answers, when every one declared is an object; else none. */
function outputSchemaOf(
  loaded: LoadedDocument,
  operation: Operation,
  converter: SchemaConverter,
): Node | undefined {
  const { document, version } = loaded
  const responses = operation.node.responses
  if (!isNode(responses)) return undefined
  const success = Object.keys(responses)
    .filter((status) => /^2(?:\d\d|XX)$/i.test(status))
    .sort()
  if (success.length === 0) return undefined
  const schemas: unknown[] = []
  for (const status of success) {
    const response = deref(document, responses[status], `response ${status}`)
    let schema: unknown
    if (version === '2.0') {
      const produces = operation.node.produces ?? document.produces
      const json =
        !Array.isArray(produces) || produces.some((type) => typeof type === 'string' && isJsonMediaType(type))
      schema = json ? response.schema : undefined
    } else if (isNode(response.content)) {
      const type = Object.keys(response.content).find(isJsonMediaType)
      const media = type === undefined ? undefined : response.content[type]
      schema = isNode(media) ? media.schema : undefined
    }
    if (schema === undefined || !converter.isObject(schema)) return undefined
    schemas.push(schema)
  }
  if (schemas.length !== 1) return undefined
  const refs = new Set<string>()
  const root = converter.convert(schemas[0], refs, true)
  if (!isNode(root)) return undefined
  return converter.withDefs({ ...root, type: 'object' }, refs)
}

function documentBaseUrl(loaded: LoadedDocument): string | undefined {
  const { document } = loaded
  if (loaded.version === '2.0') {
    if (typeof document.host !== 'string')
      return loaded.url ? new URL(String(document.basePath ?? '/'), loaded.url).href : undefined
    const schemes = Array.isArray(document.schemes) ? document.schemes : []
    const scheme = schemes.includes('https') ? 'https' : typeof schemes[0] === 'string' ? schemes[0] : 'https'
    return `${scheme}://${document.host}${typeof document.basePath === 'string' ? document.basePath : ''}`
  }
  return serverUrl(document.servers, loaded.url)
}

function operationBaseUrl(loaded: LoadedDocument, operation: Operation): string | undefined {
  return serverUrl(operation.node.servers, loaded.url) ?? serverUrl(operation.pathItem.servers, loaded.url)
}

/** The first server's URL, its variables at their defaults, resolved against where the document came from. */
function serverUrl(servers: unknown, documentUrl: URL | undefined): string | undefined {
  if (!Array.isArray(servers) || !isNode(servers[0]) || typeof servers[0].url !== 'string') return undefined
  const server = servers[0]
  const variables = isNode(server.variables) ? server.variables : {}
  const url = (server.url as string).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name]
    return isNode(variable) && variable.default !== undefined ? String(variable.default) : whole
  })
  try {
    return new URL(url, documentUrl).href
  } catch {
    return undefined
  }
}
