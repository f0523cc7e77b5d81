/**
 * A JSON request body whose schema is a plain object, as arguments beside the parameters: models and people
 * call tools with flat arguments (`createPet name=Tom tag=cat`), not with one `body` object. A body is flat
 * when its schema, through local `$ref`s and an `allOf` of such objects, is an object with `properties`;
 * `oneOf`/`anyOf`, non-object and non-JSON bodies stay one `body` argument.
 */
import { isNode, type Node, type OpenAPIVersion } from './document.js'
import { deref } from './schema.js'

/** A body's object schema, merged from its `$ref`s and `allOf` members (properties still as in the document). */
export interface ObjectShape {
  readonly properties: Node
  readonly required: readonly string[]
  /** `additionalProperties` as the document says it (undefined: not said, which allows any). */
  readonly additional: unknown
}

/** Keywords of an object schema that a flat shape can carry or safely leave out (annotations). */
const SHAPE_KEYS = new Set([
  '$ref',
  'allOf',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'title',
  'description',
  'example',
  'examples',
  'externalDocs',
  'xml',
  'deprecated',
])
/** An `allOf` nested deeper than this is not "simple". */
const MAX_DEPTH = 8

/**
 * The object shape of a body schema, or undefined when it is not simply an object: another keyword that
 * constrains the whole body (`oneOf`, `anyOf`, `not`, `nullable`, `minProperties`, `discriminator` …), a type
 * other than `object`, a property two `allOf` members declare, or no properties at all.
 */
export function objectShape(
  document: Node,
  version: OpenAPIVersion,
  schema: unknown,
): ObjectShape | undefined {
  const shape = shapeOf(document, version, schema, 0)
  return shape && Object.keys(shape.properties).length > 0 ? shape : undefined
}

function shapeOf(
  document: Node,
  version: OpenAPIVersion,
  schema: unknown,
  depth: number,
): ObjectShape | undefined {
  if (depth > MAX_DEPTH || !isNode(schema)) return undefined
  if (Object.keys(schema).some((key) => !SHAPE_KEYS.has(key) && !key.startsWith('x-'))) return undefined
  if (schema.type !== undefined && schema.type !== 'object') return undefined
  const members: unknown[] = []
  if (typeof schema.$ref === 'string') {
    members.push(deref(document, { $ref: schema.$ref }, 'the request body schema'))
    // Before OpenAPI 3.1 keywords beside `$ref` are ignored; in 3.1 (JSON Schema 2020-12) they apply too.
    if (version !== '3.1') return shapeOf(document, version, members[0], depth + 1)
  }
  if (schema.allOf !== undefined) {
    if (!Array.isArray(schema.allOf)) return undefined
    members.push(...schema.allOf)
  }
  const own: Node = {}
  for (const key of ['properties', 'required', 'additionalProperties'])
    if (schema[key] !== undefined) own[key] = schema[key]
  if (members.length === 0) {
    if (!isNode(schema.properties)) return undefined
    const required = Array.isArray(schema.required)
      ? schema.required.filter((name): name is string => typeof name === 'string')
      : []
    return { properties: schema.properties, required, additional: schema.additionalProperties }
  }
  if (Object.keys(own).length > 0) members.push(own)
  const shapes = members.map((member) => shapeOf(document, version, member, depth + 1))
  return merge(shapes)
}

/** The `allOf` of object shapes, when their properties do not overlap and their extras agree simply. */
function merge(shapes: readonly (ObjectShape | undefined)[]): ObjectShape | undefined {
  const properties: Node = {}
  const required = new Set<string>()
  let additional: unknown
  for (const shape of shapes) {
    if (shape === undefined) return undefined
    for (const [name, schema] of Object.entries(shape.properties)) {
      if (Object.hasOwn(properties, name)) return undefined
      properties[name] = schema
    }
    for (const name of shape.required) required.add(name)
    // JSON Schema would make `additionalProperties: false` in one member refuse the others' properties; the
    // documents mean "nothing beyond the merged properties", which is how it is read here. A schema for the
    // extras in an `allOf` member is not simple.
    if (shape.additional === false) additional = false
    else if (shape.additional !== undefined && shape.additional !== true) return undefined
  }
  return { properties, required: [...required], additional }
}

/** How a flat body's arguments go back into the JSON body (request.ts). */
export interface FlatBody {
  /** Body properties that are top-level arguments of their own name. */
  readonly properties: readonly string[]
  /** The argument holding the body properties whose names a parameter takes (`body`), if any. */
  readonly nested: string | undefined
  /** The body allows extra properties: an argument that is neither a parameter nor declared goes into it. */
  readonly extra: boolean
  /** The body is required: sent even when no argument fills it (`{}`). */
  readonly required: boolean
}

interface Placed {
  readonly flat: FlatBody
  /** `additionalProperties` of the tool's input schema (undefined: leave it out, any extra allowed). */
  readonly additional: unknown
}

/**
 * Puts a body's properties (`converted`: the shape as `SchemaConverter` made it, `readOnly` ones left out)
 * beside the parameters in `properties`. A property whose name an argument already has stays in the body,
 * under the argument `nestedName()` gives, so a parameter keeps its name. Required properties are required
 * arguments only when the body is.
 */
export function placeBody(
  converted: Node,
  bodyRequired: boolean,
  taken: Set<string>,
  nestedName: () => string,
  properties: Node,
  required: string[],
): Placed {
  const own = isNode(converted.properties) ? converted.properties : {}
  const wanted = new Set(Array.isArray(converted.required) ? converted.required : [])
  const flat: string[] = []
  const nested: Node = {}
  const nestedRequired: string[] = []
  for (const [name, schema] of Object.entries(own)) {
    const isRequired = bodyRequired && wanted.has(name)
    if (taken.has(name)) {
      nested[name] = schema
      if (isRequired) nestedRequired.push(name)
      continue
    }
    taken.add(name)
    properties[name] = schema
    flat.push(name)
    if (isRequired) required.push(name)
  }
  let nestedArg: string | undefined
  if (Object.keys(nested).length > 0) {
    nestedArg = nestedName()
    properties[nestedArg] = {
      type: 'object',
      description: 'Request body properties whose names a parameter of this operation also has',
      properties: nested,
      ...(nestedRequired.length > 0 ? { required: nestedRequired } : {}),
      additionalProperties: false,
    }
    if (nestedRequired.length > 0) required.push(nestedArg)
  }
  const additional = converted.additionalProperties
  return {
    flat: { properties: flat, nested: nestedArg, extra: additional !== false, required: bodyRequired },
    additional: additional === true ? undefined : additional,
  }
}
