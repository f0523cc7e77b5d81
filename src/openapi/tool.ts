/**
 * One operation as one tool definition: its input schema and request plan (input.ts), its answer's schema,
 * title, description and annotations, and the handler that builds the request and calls the API (call.ts).
 */
import { defineTool, type ToolDefinition } from '../features/tools/define.js'
import { ToolError } from '../features/tools/errors.js'
import { jsonSchema } from '../schema/standard.js'
import type { ToolAnnotations } from '../wire/types.js'
import { callOperation, type CallSettings, type OutputCheck } from './call.js'
import { isNode, type LoadedDocument, type Node } from './document.js'
import { buildInput, isJsonMediaType } from './input.js'
import type { Operation } from './operations.js'
import type { OpenAPIOptions } from './options.js'
import { type BuiltRequest, buildRequest } from './request.js'
import { deref, OperationProblem, type SchemaConverter } from './schema.js'
import { httpUrl, pathKeyProblem } from './url.js'

/**
 * The tool as published when answers may drift: server/tools §Output Schema says a server MUST send
 * structured results that conform to a declared `outputSchema` (and SDK clients refuse a result without
 * one), so a tool that returns an answer the document does not describe as data cannot declare it. The
 * documented schema still checks each answer (`callOperation`); one that conforms is sent as
 * `structuredContent`.
 */
export function withoutOutputSchema(tool: ToolDefinition): ToolDefinition {
  const { outputSchema: _documented, ...config } = tool.config
  return { ...tool, config }
}

/** The tool for `operation`; throws (an `OperationProblem` or the definition check's error) when it cannot be one. */
export function makeTool(
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
