/**
 * What every request of one operation shares in its server span and its `mcp.server.operation.duration`
 * measurement (semantic-conventions, gen-ai/mcp.md §Server, §Metrics): the span name and the low-cardinality
 * attributes, which depend only on the method, the tool or prompt name, the protocol version and the
 * transport. Built once and reused while requests keep asking for the same operation, so a steady stream of
 * calls to one tool builds no span name and no metric attributes per request. The span's attributes are
 * still built per request, since the request adds its own (its id, the client's address, a resource URI).
 */
import type { Attributes } from '@opentelemetry/api'
import { ATTR, networkTransport, operationAttributes, operationTarget, spanName } from '../wire/telemetry.js'

export interface ServerOperation {
  readonly method: string
  /** `gen_ai.tool.name` or `gen_ai.prompt.name`, if the method has a target. */
  readonly targetAttribute: string | undefined
  /** The tool or prompt name, if the method has one. */
  readonly name: string | undefined
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
  params: Record<string, unknown> | undefined,
  protocolVersion: string | undefined,
  transport: string,
): ServerOperation {
  const target = operationTarget(method, params)
  const metricAttributes: Attributes = operationAttributes(method, target)
  if (protocolVersion !== undefined) metricAttributes[ATTR.protocolVersion] = protocolVersion
  const network = networkTransport(transport)
  if (network !== undefined) metricAttributes[ATTR.networkTransport] = network
  return {
    method,
    targetAttribute: target.attribute,
    name: target.name,
    protocolVersion,
    transport,
    networkTransport: network,
    spanName: spanName(method, target),
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
 */
export class LastOperation {
  #last: ServerOperation | undefined

  of(
    method: string,
    params: Record<string, unknown> | undefined,
    protocolVersion: string | undefined,
    transport: string,
  ): ServerOperation {
    const last = this.#last
    if (
      last !== undefined &&
      last.method === method &&
      last.protocolVersion === protocolVersion &&
      last.transport === transport &&
      last.name === targetName(method, params)
    )
      return last
    return (this.#last = buildOperation(method, params, protocolVersion, transport))
  }
}

/** The name `operationTarget` would take from these params, without building the target. */
function targetName(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined
  const name = params?.name
  return typeof name === 'string' ? name : undefined
}
