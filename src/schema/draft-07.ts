/**
 * draft-07's rule for `$ref` (draft-handrews-json-schema-01 §8.3: "All other properties in a "$ref" object
 * MUST be ignored"), which neither validator applies: both check a sibling `maxLength` and let a sibling
 * `$id` move the base URI. So a draft-07 schema is validated as a copy without the siblings; the schema
 * published on the wire stays as written. `definitions` beside a `$ref` stays, inert: a JSON Pointer may
 * still name a subschema in it (a root `$ref` next to the `definitions` it points into is common).
 */

/** Keywords whose value is data, never a subschema: a `$ref` inside is not a reference. */
const DATA = new Set(['const', 'enum', 'default', 'examples'])
/** Keywords whose value is an object of subschemas keyed by name (a property may be called `$ref`). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies'])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The schema with every `$ref`'s siblings (other than `definitions`) dropped; the same object if it has none. */
export function withoutRefSiblings(schema: Record<string, unknown>): Record<string, unknown> {
  let changed = false
  const subschema = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      const items = node.map(subschema)
      return items.some((item, index) => item !== node[index]) ? items : node
    }
    if (!isRecord(node)) return node
    if (
      typeof node.$ref === 'string' &&
      Object.keys(node).some((key) => key !== '$ref' && key !== 'definitions')
    ) {
      changed = true
      const kept: Record<string, unknown> = { $ref: node.$ref }
      if ('definitions' in node) kept.definitions = map(node.definitions)
      return kept
    }
    let copy: Record<string, unknown> | undefined
    for (const [keyword, value] of Object.entries(node)) {
      if (DATA.has(keyword)) continue
      const next = SCHEMA_MAPS.has(keyword) ? map(value) : subschema(value)
      if (next !== value) (copy ??= { ...node })[keyword] = next
    }
    return copy ?? node
  }
  const map = (value: unknown): unknown => {
    if (!isRecord(value)) return value
    let copy: Record<string, unknown> | undefined
    for (const [name, sub] of Object.entries(value)) {
      const next = subschema(sub)
      if (next !== sub) (copy ??= { ...value })[name] = next
    }
    return copy ?? value
  }
  const result = subschema(schema) as Record<string, unknown>
  return changed ? result : schema
}
