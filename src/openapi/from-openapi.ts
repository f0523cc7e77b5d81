/**
 * `fromOpenAPI`: an OpenAPI document's operations as tool definitions, one tool per operation, each
 * checked by the same definition-time checks as a hand-written tool (compile.ts) before it is returned.
 */
import type { ToolDefinition } from '../features/tools/define.js'
import { compileTool } from '../features/tools/compile.js'
import { SchemaCompiler } from '../schema/json-schema.js'
import { prepareSchema } from '../schema/standard.js'
import { isPrivateAddress } from '../wire/private-address.js'
import { documentBaseUrl, operationBaseUrl } from './base-url.js'
import type { CallSettings, OutputCheck } from './call.js'
import { isNode, loadDocument } from './document.js'
import { OpenAPIError, type OpenAPIProblem } from './errors.js'
import { listOperations, matches, nameOperations } from './operations.js'
import { checkOptions, OPENAPI_DEFAULTS, type OpenAPIOptions, type OpenAPIWarning } from './options.js'
import { SchemaConverter } from './schema.js'
import { ServerJudge } from './server-reach.js'
import { makeTool, withoutOutputSchema } from './tool.js'

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
  // Without strictResponses an answer's schema only decides, per answer, whether it is sent as
  // structuredContent: it is checked now (an operation whose schema is invalid or expands too far is
  // skipped), and its validator is built on the tool's first answer. With strictResponses it is published,
  // and compiled now like every published schema.
  const answers = settings.strictResponses ? undefined : new SchemaCompiler({ deferReferences: true })
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
      const published = answers === undefined ? tool : withoutOutputSchema(tool)
      const compiled = compileTool(published, compiler)
      const schema = tool.config.outputSchema
      const validator =
        answers === undefined || schema === undefined
          ? compiled.output
          : prepareSchema(schema, 'output', `Tool ${name} outputSchema`, answers)
      if (validator) output.check = (value) => validator.validateAsync(value)
      tools.push({
        tool: published,
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
