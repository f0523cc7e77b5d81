/**
 * An operation's `inputSchema`: one argument per path, query, header and cookie parameter (Swagger 2.0 form
 * fields too) and the request body, with the plan that turns the arguments back into a request.
 * An argument keeps its parameter's name; a second parameter of that name in another place is prefixed with
 * the place (`query_id`). A JSON object body's properties are arguments beside the parameters (body.ts);
 * any other body is the `body` argument, and a parameter named `body` moves it to `requestBody`.
 */
import { type FlatBody, objectShape, placeBody } from './body.js'
import { isNode, type Node, type OpenAPIVersion } from './document.js'
import type { Operation } from './operations.js'
import { deref, OperationProblem, resolvePointer, type SchemaConverter } from './schema.js'

export type ParameterPlace = 'path' | 'query' | 'header' | 'cookie' | 'formData'

export interface ParameterBinding {
  readonly arg: string
  readonly name: string
  readonly in: ParameterPlace
  /** OpenAPI 3 `style` (Swagger 2.0 `collectionFormat` mapped to it; `tabDelimited` for `tsv`). */
  readonly style: string
  readonly explode: boolean
  readonly allowReserved: boolean
  /** A parameter described by `content` (not `schema`): its value is sent as JSON text. */
  readonly json: boolean
}

export interface BodyBinding {
  /** The argument that holds the body; for a flat body, the one holding the properties a parameter's name takes. */
  readonly arg: string | undefined
  readonly mediaType: string
  /** A JSON object body whose properties are top-level arguments (body.ts). */
  readonly flat: FlatBody | undefined
}

export interface RequestPlan {
  readonly parameters: readonly ParameterBinding[]
  readonly body: BodyBinding | undefined
  /** Swagger 2.0 form fields go as this media type. */
  readonly formMediaType: string | undefined
}

const PLACES: readonly ParameterPlace[] = ['path', 'query', 'header', 'cookie', 'formData']
/** OpenAPI 3 §Parameter Object: header parameters with these names are ignored (they come from elsewhere). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

export const isJsonMediaType = (type: string): boolean =>
  /^application\/(?:[\w.+-]+\+)?json\b/i.test(type) || type === '*/*'

/** The media type a body is sent as: JSON first, then forms, then text, then whatever is first. */
export function pickMediaType(types: readonly string[]): string | undefined {
  return (
    types.find((type) => /^application\/json\b/i.test(type)) ??
    types.find(isJsonMediaType) ??
    types.find((type) => type === 'application/x-www-form-urlencoded') ??
    types.find((type) => type === 'multipart/form-data') ??
    types.find((type) => type.startsWith('text/')) ??
    types[0]
  )
}

/** Swagger 2.0 `collectionFormat` as an OpenAPI 3 style. */
function styleOf2(place: ParameterPlace, format: unknown): { style: string; explode: boolean } {
  switch (format) {
    case 'multi':
      return { style: 'form', explode: true }
    case 'ssv':
      return { style: 'spaceDelimited', explode: false }
    case 'pipes':
      return { style: 'pipeDelimited', explode: false }
    case 'tsv':
      return { style: 'tabDelimited', explode: false }
    default:
      return { style: place === 'query' || place === 'formData' ? 'form' : 'simple', explode: false }
  }
}

interface Built {
  readonly inputSchema: Node
  readonly plan: RequestPlan
}

export function buildInput(
  document: Node,
  version: OpenAPIVersion,
  operation: Operation,
  converter: SchemaConverter,
): Built {
  const refs = new Set<string>()
  const properties: Node = {}
  const required: string[] = []
  const parameters: ParameterBinding[] = []
  const taken = new Set<string>()
  const argName = (name: string, place: string): string => {
    let arg = taken.has(name) ? `${place}_${name}` : name
    for (let n = 2; taken.has(arg); n++) arg = `${place}_${name}_${n}`
    taken.add(arg)
    return arg
  }

  const declared = mergeParameters(document, operation)
  let body2: Node | undefined
  declared.sort((a, b) => PLACES.indexOf(a.in as ParameterPlace) - PLACES.indexOf(b.in as ParameterPlace))
  for (const parameter of declared) {
    const place = parameter.in as string
    const name = parameter.name as string
    if (place === 'body') {
      body2 = parameter
      continue
    }
    if (!PLACES.includes(place as ParameterPlace))
      throw new OperationProblem(
        `parameter ${name} is in ${JSON.stringify(place)}, not a place OpenAPI knows`,
      )
    if (place === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue
    let schema: unknown
    let json = false
    let style: { style: string; explode: boolean }
    if (version === '2.0') {
      const { name: _n, in: _i, required: _r, description: _d, collectionFormat, ...rest } = parameter
      schema = rest
      style = styleOf2(place as ParameterPlace, collectionFormat)
    } else {
      const defaultStyle = place === 'query' || place === 'cookie' ? 'form' : 'simple'
      const chosen = typeof parameter.style === 'string' ? parameter.style : defaultStyle
      style = {
        style: chosen,
        explode: typeof parameter.explode === 'boolean' ? parameter.explode : chosen === 'form',
      }
      if (parameter.schema !== undefined) schema = parameter.schema
      else if (isNode(parameter.content)) {
        const [first] = Object.values(parameter.content)
        schema = isNode(first) ? first.schema : undefined
        json = true
      }
    }
    const converted = converter.convert(schema ?? {}, refs)
    const property: unknown =
      isNode(converted) && typeof parameter.description === 'string' && converted.description === undefined
        ? { ...converted, description: parameter.description }
        : converted
    const arg = argName(name, place)
    properties[arg] = property
    if (place === 'path' || parameter.required === true) required.push(arg)
    parameters.push({
      arg,
      name,
      in: place as ParameterPlace,
      ...style,
      allowReserved: parameter.allowReserved === true,
      json,
    })
  }

  let body: BodyBinding | undefined
  let additional: unknown = false
  const bodyArg = (): string => (taken.has('body') ? argName('requestBody', 'body') : argName('body', 'body'))
  let found: { schema: unknown; mediaType: string; description: unknown; required: boolean } | undefined
  if (version === '2.0') {
    if (body2)
      found = {
        schema: body2.schema ?? {},
        mediaType: pickMediaType(consumesOf(document, operation)) ?? 'application/json',
        description: body2.description,
        required: body2.required === true,
      }
  } else if (operation.node.requestBody !== undefined) {
    const requestBody = deref(document, operation.node.requestBody, 'requestBody')
    const content = isNode(requestBody.content) ? requestBody.content : {}
    const mediaType = pickMediaType(Object.keys(content))
    if (mediaType !== undefined) {
      const media = content[mediaType]
      found = {
        schema:
          isNode(media) && media.schema !== undefined
            ? media.schema
            : isJsonMediaType(mediaType)
              ? {}
              : { type: 'string' },
        mediaType,
        description: requestBody.description,
        required: requestBody.required === true,
      }
    }
  }
  if (found) {
    const { mediaType } = found
    const shape = isJsonMediaType(mediaType) ? objectShape(document, version, found.schema) : undefined
    const converted =
      shape &&
      converter.convert(
        {
          type: 'object',
          properties: shape.properties,
          required: shape.required,
          ...(shape.additional === undefined ? {} : { additionalProperties: shape.additional }),
        },
        refs,
      )
    if (isNode(converted) && isNode(converted.properties) && Object.keys(converted.properties).length > 0) {
      const placed = placeBody(converted, found.required, taken, bodyArg, properties, required)
      additional = placed.additional
      body = { arg: placed.flat.nested, mediaType, flat: placed.flat }
    } else {
      const arg = bodyArg()
      body = { arg, mediaType, flat: undefined }
      properties[arg] = describe(converter.convert(found.schema, refs), found.description)
      if (found.required) required.push(arg)
    }
  }
  const formFields = parameters.some((parameter) => parameter.in === 'formData')
  const root: Node = { type: 'object', properties }
  if (required.length > 0) root.required = required
  // A flat body that allows extra properties lets extra arguments through, into the body (request.ts).
  if (additional !== undefined) root.additionalProperties = additional
  return {
    inputSchema: converter.withDefs(root, refs),
    plan: {
      parameters,
      body,
      formMediaType: formFields
        ? consumesOf(document, operation).includes('multipart/form-data') &&
          !consumesOf(document, operation).includes('application/x-www-form-urlencoded')
          ? 'multipart/form-data'
          : 'application/x-www-form-urlencoded'
        : undefined,
    },
  }
}

function describe(schema: unknown, description: unknown): unknown {
  if (!isNode(schema) || typeof description !== 'string' || schema.description !== undefined) return schema
  return { ...schema, description }
}

function consumesOf(document: Node, operation: Operation): string[] {
  const list = operation.node.consumes ?? document.consumes
  return Array.isArray(list) ? list.filter((type): type is string => typeof type === 'string') : []
}

/** Path-level parameters, overridden by operation-level ones of the same name and place. */
function mergeParameters(document: Node, operation: Operation): Node[] {
  const merged = new Map<string, Node>()
  for (const given of [operation.pathItem.parameters, operation.node.parameters]) {
    if (given === undefined) continue
    // Some documents give the whole list as a `$ref` (to a list, or to one parameter).
    const target =
      isNode(given) && typeof given.$ref === 'string' ? resolvePointer(document, given.$ref) : given
    const list = isNode(target) ? [given] : target
    if (!Array.isArray(list)) throw new OperationProblem('parameters is not a list')
    for (const entry of list) {
      const parameter = deref(document, entry, 'a parameter')
      if (typeof parameter.name !== 'string' || typeof parameter.in !== 'string')
        throw new OperationProblem('a parameter has no name or no in')
      merged.set(`${parameter.in}:${parameter.name}`, parameter)
    }
  }
  return [...merged.values()]
}
