/**
 * OpenAPI schemas to the JSON Schema 2020-12 a tool publishes (server/tools §Tool: `inputSchema`,
 * `outputSchema`; basic/index §JSON Schema Usage: 2020-12 unless `$schema` says otherwise).
 *
 * A `$ref` to a component stays a reference: each tool carries the components it reaches under `$defs`, so
 * a recursive schema (a tree, a linked list) stays finite. OpenAPI 3.0 and Swagger 2.0 spellings become
 * 2020-12 ones (`nullable`, boolean `exclusiveMinimum`, `type: file`); keywords JSON Schema does not have
 * (`discriminator`, `xml`, `example`, `x-…`) are left out, and so are formats a validator would not know; a
 * `oneOf` with a `discriminator` becomes `anyOf` (the discriminator, not a single match, picks the branch).
 */
import { isNode, type Node, type OpenAPIVersion } from './document.js'

/** A reason one operation cannot become a tool; caught per operation and reported with its name. */
export class OperationProblem extends Error {}

/** Keywords copied as they are. */
const PLAIN = new Set([
  'type',
  'enum',
  'const',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'dependentRequired',
  'contentEncoding',
  'contentMediaType',
])
/** Keywords whose value is one schema (or, for some, a boolean). */
const ONE = new Set([
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
])
/** Keywords whose value is a map of schemas. */
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas'])
/** Keywords whose value is a list of schemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
/** The formats ajv-formats and @cfworker/json-schema both know; others would only warn. */
const FORMATS = new Set([
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
])
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
/** A chain of `$ref`s to `$ref`s longer than this is taken for a loop. */
const MAX_HOPS = 32

/** The value a local JSON pointer (`#/components/schemas/Pet`) names in the document, if any. */
export function resolvePointer(document: Node, ref: string): unknown {
  if (ref === '#') return document
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = document
  for (const raw of ref.slice(2).split('/')) {
    let token: string
    try {
      token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    } catch {
      return undefined
    }
    if (!isNode(node) && !Array.isArray(node)) return undefined
    if (!Object.hasOwn(node, token)) return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

/** Follows `$ref`s (of a parameter, a request body, a response, a schema) to the object they name. */
export function deref(document: Node, value: unknown, what: string): Node {
  let node = value
  const seen = new Set<string>()
  for (let hops = 0; isNode(node) && typeof node.$ref === 'string'; hops++) {
    const ref = node.$ref
    if (seen.has(ref) || hops > MAX_HOPS) throw new OperationProblem(`circular $ref ${ref} in ${what}`)
    seen.add(ref)
    if (!ref.startsWith('#')) throw new OperationProblem(`${what}: $ref ${ref} was not resolved`)
    node = resolvePointer(document, ref)
    if (node === undefined) throw new OperationProblem(`${what}: $ref ${ref} points to nothing`)
  }
  if (!isNode(node)) throw new OperationProblem(`${what} is not an object`)
  return node
}

interface Converted {
  readonly schema: unknown
  /** The pointers this schema refers to. */
  readonly refs: readonly string[]
}

/** Converts one document's schemas, each component once, for every tool made from it. */
export class SchemaConverter {
  readonly #document: Node
  readonly #version: OpenAPIVersion
  readonly #components = new Map<string, Converted>()
  readonly #names = new Map<string, string>()
  readonly #taken = new Set<string>()
  /** The hint that hides a property in this direction: `readOnly` in requests, `writeOnly` in answers. */
  readonly #hiding: 'readOnly' | 'writeOnly'

  /**
   * `direction`: schemas of requests leave out `readOnly` properties, schemas of answers `writeOnly` ones
   * (OpenAPI 3.1 §Fixed Fields of the Schema Object: a property marked so is not sent that way), so a model
   * is never asked for an id the server assigns.
   */
  constructor(document: Node, version: OpenAPIVersion, direction: 'request' | 'response') {
    this.#document = document
    this.#version = version
    this.#hiding = direction === 'request' ? 'readOnly' : 'writeOnly'
  }

  /**
   * Converts `schema` for a tool, adding the components it refers to to `refs`. `inline` converts what a
   * root `$ref` names instead of referring to it, so the root keeps its `type` (an `outputSchema` must be
   * an object at its root).
   */
  convert(schema: unknown, refs: Set<string>, inline = false): unknown {
    return this.#convert(inline ? this.#target(schema) : schema, refs)
  }

  /** `root` with the components `refs` reach (directly or through each other) under `$defs`. */
  withDefs(root: Node, refs: ReadonlySet<string>): Node {
    const defs: Node = {}
    const queue = [...refs]
    const done = new Set<string>()
    while (queue.length > 0) {
      const ref = queue.pop() as string
      if (done.has(ref)) continue
      done.add(ref)
      const component = this.#component(ref)
      defs[this.#nameOf(ref)] = component.schema
      queue.push(...component.refs)
    }
    return done.size > 0 ? { ...root, $defs: defs } : root
  }

  /** Whether a schema (through its `$ref`s) describes an object: what an `outputSchema` must be. */
  isObject(schema: unknown): boolean {
    const target = this.#target(schema)
    if (target.type === 'object') return true
    if (target.type !== undefined) return false
    if (isNode(target.properties)) return true
    return (
      Array.isArray(target.allOf) && target.allOf.length > 0 && target.allOf.every((s) => this.isObject(s))
    )
  }

  #target(schema: unknown): Node {
    return deref(this.#document, schema, 'schema')
  }

  #component(ref: string): Converted {
    const known = this.#components.get(ref)
    if (known) return known
    const target = resolvePointer(this.#document, ref)
    if (target === undefined) throw new OperationProblem(`$ref ${ref} points to nothing`)
    // A schema that is only a reference to itself, directly or through others, describes nothing.
    deref(this.#document, { $ref: ref }, `schema ${ref}`)
    const refs = new Set<string>()
    const converted = { schema: this.#convert(target, refs), refs: [...refs] }
    this.#components.set(ref, converted)
    return converted
  }

  /** The `$defs` key of a component: its name when it has one, made unique within the document. */
  #nameOf(ref: string): string {
    const known = this.#names.get(ref)
    if (known) return known
    const match = /^#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(ref)
    const raw = match?.[1] ?? ref.slice(2)
    const base = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    const clean = base.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'schema'
    let name = clean
    for (let n = 2; this.#taken.has(name); n++) name = `${clean}_${n}`
    this.#taken.add(name)
    this.#names.set(ref, name)
    return name
  }

  #convert(node: unknown, refs: Set<string>): unknown {
    if (typeof node === 'boolean') return node
    if (!isNode(node)) return {}
    if (typeof node.$ref === 'string') {
      const ref = node.$ref
      if (!ref.startsWith('#')) throw new OperationProblem(`$ref ${ref} was not resolved`)
      if (resolvePointer(this.#document, ref) === undefined)
        throw new OperationProblem(`$ref ${ref} points to nothing`)
      refs.add(ref)
      const out: Node = { $ref: `#/$defs/${this.#nameOf(ref)}` }
      // OpenAPI 3.1 schemas are 2020-12 schemas, where keywords beside `$ref` count; before 3.1 they are ignored.
      if (this.#version === '3.1') {
        const rest = this.#convert({ ...node, $ref: undefined }, refs) as Node
        for (const [key, value] of Object.entries(rest)) out[key] = value
      }
      return out
    }
    const out: Node = {}
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined) continue
      if (PLAIN.has(key)) out[key] = value
      // 2020-12 `examples` is a list; OpenAPI 3.0 documents often give a map of Example Objects there (the
      // Media Type Object's spelling), which a validator would reject: left out, like `example`.
      else if (key === 'examples') {
        if (Array.isArray(value)) out.examples = value
      } else if (key === 'format') {
        if (typeof value === 'string' && FORMATS.has(value)) out.format = value
      } else if (key === 'required') {
        if (Array.isArray(value) && value.every((name) => typeof name === 'string')) out.required = value
      } else if (ONE.has(key)) {
        // Swagger 2.0 and draft-04 tuples (`items: [...]`) are `prefixItems` in 2020-12.
        if (key === 'items' && Array.isArray(value))
          out.prefixItems = value.map((item: unknown) => this.#convert(item, refs))
        else out[key] = this.#convert(value, refs)
      } else if (key === 'properties' && isNode(value)) {
        const kept = Object.entries(value).filter(([, schema]) => !this.#hidden(schema))
        out.properties = Object.fromEntries(kept.map(([name, schema]) => [name, this.#convert(schema, refs)]))
      } else if (MAP.has(key) && isNode(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, schema]) => [name, this.#convert(schema, refs)]),
        )
      } else if (LIST.has(key) && Array.isArray(value)) {
        out[key] = value.map((schema: unknown) => this.#convert(schema, refs))
      }
    }
    if (Array.isArray(out.required) && isNode(node.properties)) {
      const properties = node.properties
      out.required = out.required.filter((name: string) => !this.#hidden(properties[name]))
    }
    // OpenAPI 3.1 §Discriminator Object: with a discriminator, the property's value picks the `oneOf` branch.
    // JSON Schema's `oneOf` asks instead that exactly one branch match, which open branches (every property
    // optional or extra allowed, the usual Cat/Dog) never give: every argument would be refused. `anyOf`
    // keeps what any branch takes; the API judges the rest.
    if (isNode(node.discriminator) && Array.isArray(out.oneOf) && out.anyOf === undefined) {
      out.anyOf = out.oneOf
      delete out.oneOf
    }
    this.#legacySpellings(node, out)
    return out
  }

  /** Whether a property is left out in this direction, marked on itself or on the schema it refers to. */
  #hidden(schema: unknown): boolean {
    if (!isNode(schema)) return false
    if (schema[this.#hiding] === true) return true
    if (typeof schema.$ref !== 'string') return false
    const target = resolvePointer(this.#document, schema.$ref)
    return isNode(target) && target[this.#hiding] === true
  }

  /** OpenAPI 3.0 and Swagger 2.0 spellings, in their 2020-12 form. */
  #legacySpellings(node: Node, out: Node): void {
    if (this.#version === '3.1') return
    if (out.type === 'file') {
      out.type = 'string'
      out.description ??= 'file contents'
    }
    if (typeof out.type === 'string' && !TYPES.has(out.type)) delete out.type
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (node[flag] === true && typeof node[bound] === 'number') {
        out[flag] = node[bound]
        delete out[bound]
      }
    }
    if (node.nullable !== true) return
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
    if (typeof out.type === 'string') out.type = [out.type, 'null']
    else if (out.type === undefined && Object.keys(out).some((key) => LIST.has(key))) {
      const { description, title, ...rest } = out
      for (const key of Object.keys(out)) delete out[key]
      Object.assign(out, {
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
        anyOf: [rest, { type: 'null' }],
      })
    }
  }
}
