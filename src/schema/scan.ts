/**
 * One walk over a schema's subschemas at definition time: it checks every regular expression the schema
 * holds (so an unusable or catastrophic pattern fails when the server is defined, not at first use) and
 * reports what decides which validator may check the schema first (json-schema.ts).
 */
import { type RegExpLike, trustedRegExp, untrustedRegExp } from './regexp.js'

export interface SchemaScan {
  /** `$ref`s, `$id`s or anchors: only ajv resolves them the way a compile-time error needs. */
  readonly references: boolean
  /** `pattern`, `patternProperties` or `format`: the interpreting validator runs these natively. */
  readonly nativeRegExps: boolean
  /**
   * The schema's patterns as ajv runs them, by source, for the interpreting validator (interpreted.ts): RE2
   * only for an untrusted schema; RE2 where it can, else native, for a trusted one.
   */
  readonly linearPatterns: ReadonlyMap<string, RegExpLike>
  /** `unevaluatedItems` or `unevaluatedProperties`: ajv misjudges some of these (json-schema.ts routes them). */
  readonly unevaluated: boolean
  /** `$dynamicRef`: the interpreting validator misjudges it (json-schema.ts routes it). */
  readonly dynamicRefs: boolean
}

/** Keywords whose value is an object of subschemas keyed by name. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
/** Keywords whose value is data, never a subschema. */
const DATA = new Set(['const', 'enum', 'default', 'examples'])
const REFERENCES = [
  '$ref',
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
]

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Walks a schema already bounded in depth and size (json-schema.ts checkBounds). */
export function scanSchema(schema: Record<string, unknown>, untrusted: boolean): SchemaScan {
  let references = false
  let nativeRegExps = false
  let unevaluated = false
  let dynamicRefs = false
  const linearPatterns = new Map<string, RegExpLike>()
  const check = (pattern: string): void => {
    linearPatterns.set(pattern, untrusted ? untrustedRegExp(pattern) : trustedRegExp(pattern, 'u'))
  }
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item)
      return
    }
    if (!isRecord(node)) return
    if (REFERENCES.some((keyword) => keyword in node)) references = true
    if (typeof node.pattern === 'string') {
      nativeRegExps = true
      check(node.pattern)
    }
    if (isRecord(node.patternProperties)) {
      nativeRegExps = true
      for (const pattern of Object.keys(node.patternProperties)) check(pattern)
    }
    if (typeof node.format === 'string') nativeRegExps = true
    if ('unevaluatedItems' in node || 'unevaluatedProperties' in node) unevaluated = true
    if ('$dynamicRef' in node) dynamicRefs = true
    for (const [keyword, value] of Object.entries(node)) {
      if (DATA.has(keyword)) continue
      if (SCHEMA_MAPS.has(keyword) && isRecord(value)) for (const sub of Object.values(value)) visit(sub)
      else visit(value)
    }
  }
  visit(schema)
  return { references, nativeRegExps, linearPatterns, unevaluated, dynamicRefs }
}
