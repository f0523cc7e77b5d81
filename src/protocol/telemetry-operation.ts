/**
 * What every request of one operation shares in its server span and its `mcp.server.operation.duration`
 * measurement (semantic-conventions, gen-ai/mcp.md §Server, §Metrics): the span name and the low-cardinality
 * attributes, which depend only on the method, the tool or prompt name, the protocol version and the
 * transport. Built once and reused while requests keep asking for the same operation, so a steady stream of
 * calls to one tool builds no span name and no metric attributes per request. The span's attributes are
 * still built per request, since the request adds its own (its id, the client's address, a resource URI).
 */
import type { Attributes } from '../wire/otel-api.js'
import {
  ATTR,
  networkTransport,
  operationAttributes,
  OTHER_NAME,
  type OperationTarget,
  spanName,
} from '../wire/telemetry.js'

/**
 * Whether the server defines a tool (`tools/call`) or prompt (`prompts/get`) of this name: a lookup in the
 * registry's own map, so it stays in step with tools added and removed at runtime and costs no allocation.
 */
export type DefinedName = (method: string, name: string) => boolean

export interface ServerOperation {
  readonly method: string
  /** `gen_ai.tool.name` or `gen_ai.prompt.name`, if the method has a target. */
  readonly targetAttribute: string | undefined
  /** The tool or prompt name, if the method has one; `_OTHER` when the server defines no such name. */
  readonly name: string | undefined
  /** Whether the request named a tool or prompt the server does not define (`name` is then `_OTHER`). */
  readonly unknown: boolean
  readonly protocolVersion: string | undefined
  /** The exchange's transport (`http`, `stdio` …). */
  readonly transport: string
  /** `network.transport`, from the exchange's transport. */
  readonly networkTransport: string | undefined
  readonly spanName: string
  /** The measurement's attributes when the request succeeds. Frozen: every such measurement shares it. */
  readonly metricAttributes: Readonly<Attributes>
}

function buildOperation(
  method: string,
  name: string | undefined,
  unknown: boolean,
  protocolVersion: string | undefined,
  transport: string,
): ServerOperation {
  const attribute = targetAttribute(method)
  const target: OperationTarget = attribute !== undefined && name !== undefined ? { attribute, name } : {}
  const metricAttributes: Attributes = operationAttributes(method, target)
  if (protocolVersion !== undefined) metricAttributes[ATTR.protocolVersion] = protocolVersion
  const network = networkTransport(transport)
  if (network !== undefined) metricAttributes[ATTR.networkTransport] = network
  return {
    method,
    targetAttribute: target.attribute,
    name: target.name,
    unknown,
    protocolVersion,
    transport,
    networkTransport: network,
    // An unknown name is not in the span name at all (`tools/call`), as an unknown HTTP method is `HTTP`.
    spanName: unknown ? method : spanName(method, target),
    metricAttributes: Object.freeze(metricAttributes),
  }
}

/**
 * A fresh object for one request's span (the SDK copies it, and the request adds its own attributes), built
 * key by key in one fixed order rather than spread from a template: a spread copy starts with no room for
 * more properties, so each added one reshapes the object, and V8 then gives each request's object its own
 * hidden class (in one callgrind profile, about 10,000 more instructions per call).
 */
export function operationSpanAttributes(operation: ServerOperation): Attributes {
  // A plain key, not `[ATTR.method]`: a computed key in a literal is defined through the runtime, per call.
  const attributes: Attributes = { 'mcp.method.name': operation.method } satisfies Record<
    typeof ATTR.method,
    string
  >
  if (operation.targetAttribute !== undefined && operation.name !== undefined) {
    attributes[operation.targetAttribute] = operation.name
    // gen_ai.operation.name: "SHOULD be set to execute_tool when the operation describes a tool call".
    if (operation.method === 'tools/call') attributes[ATTR.operation] = 'execute_tool'
  }
  if (operation.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = operation.protocolVersion
  if (operation.networkTransport !== undefined) attributes[ATTR.networkTransport] = operation.networkTransport
  if (operation.transport === 'http') attributes[ATTR.networkProtocol] = 'http'
  return attributes
}

/**
 * Remembers the last operation only: bounded by construction (names come from clients, so a map of every
 * name seen would grow without limit), and a server busy with one tool, the costly case, always finds it.
 * Unknown names all share one operation (`_OTHER`), so a caller cycling through made-up names builds nothing.
 */
export class LastOperation {
  #last: ServerOperation | undefined

  of(
    method: string,
    params: Record<string, unknown> | undefined,
    protocolVersion: string | undefined,
    transport: string,
    defined: DefinedName | undefined,
  ): ServerOperation {
    let name = targetName(method, params)
    const unknown = name !== undefined && defined !== undefined && !defined(method, name)
    if (unknown) name = OTHER_NAME
    const last = this.#last
    if (
      last !== undefined &&
      last.method === method &&
      last.protocolVersion === protocolVersion &&
      last.transport === transport &&
      last.name === name &&
      last.unknown === unknown
    )
      return last
    return (this.#last = buildOperation(method, name, unknown, protocolVersion, transport))
  }
}

/** `gen_ai.tool.name` or `gen_ai.prompt.name`, for the methods that name one. */
const targetAttribute = (method: string): string | undefined =>
  method === 'tools/call' ? ATTR.toolName : method === 'prompts/get' ? ATTR.promptName : undefined

/** The tool or prompt name a request asks for (`params.name`), for the methods that take one. */
export function targetName(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined
  const name = params?.name
  return typeof name === 'string' ? name : undefined
}
