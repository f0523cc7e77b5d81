/**
 * A quick verdict for the schemas most tools have: `type`, `properties`, `required`, bounds, `enum`,
 * descriptions. For those the 2020-12 meta-schema check is a foregone conclusion, yet the generated meta
 * validator (meta-2020-12.generated.ts) is one of the largest functions toolwire has, and running it for
 * the first time is a measurable part of a server's start-up.
 *
 * The verdict is one-sided: `true` means the schema is certainly valid 2020-12 (the meta-schema accepts it);
 * `false` only means "not recognised here", and the caller asks the full meta validator, whose answer and
 * messages stand. So a schema is never judged differently for taking this path; test/plain-schema.test.ts
 * proves that the full validator accepts everything this accepts, on generated schemas. Every rule below is
 * as strict as the meta-schema's own (core/applicator/validation/meta-data vocabularies) or stricter.
 */

/** The meta-schema's `simpleTypes` (validation vocabulary). */
const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'])

type Check = (value: unknown, depth: number) => boolean

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  // Another prototype could lend the meta validator's `for…in` keys this walk does not see.
  return prototype === Object.prototype || prototype === null
}

const finiteNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value)
const count: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0
const text: Check = (value) => typeof value === 'string'
const flag: Check = (value) => typeof value === 'boolean'
const anything: Check = () => true

function uniqueStrings(value: unknown): boolean {
  if (!Array.isArray(value)) return false
  for (const item of value) if (typeof item !== 'string') return false
  return new Set(value).size === value.length
}

function typeKeyword(value: unknown): boolean {
  if (typeof value === 'string') return SIMPLE_TYPES.has(value)
  if (!Array.isArray(value) || value.length === 0 || !uniqueStrings(value)) return false
  return value.every((item: string) => SIMPLE_TYPES.has(item))
}

const subschema: Check = (value, depth) => isPlainSchema(value, depth + 1)

function schemaMap(value: unknown, depth: number): boolean {
  if (!isPlainObject(value)) return false
  for (const key in value) if (!isPlainSchema(value[key], depth + 1)) return false
  return true
}

/** The keywords recognised here and what each must hold; any other keyword sends the schema to the full check. */
const KEYWORDS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['type', typeKeyword],
  ['properties', schemaMap],
  ['required', uniqueStrings],
  ['additionalProperties', subschema],
  ['items', subschema],
  ['title', text],
  ['description', text],
  ['$comment', text],
  ['format', text],
  ['default', anything],
  ['const', anything],
  ['enum', Array.isArray],
  ['examples', Array.isArray],
  ['deprecated', flag],
  ['readOnly', flag],
  ['writeOnly', flag],
  ['uniqueItems', flag],
  ['minimum', finiteNumber],
  ['maximum', finiteNumber],
  ['exclusiveMinimum', finiteNumber],
  ['exclusiveMaximum', finiteNumber],
  ['multipleOf', (value) => finiteNumber(value, 0) && (value as number) > 0],
  ['minLength', count],
  ['maxLength', count],
  ['minItems', count],
  ['maxItems', count],
  ['minProperties', count],
  ['maxProperties', count],
])

/** Deeper than this is left to the full check (the compiler has bounded depth already; this keeps the stack small). */
const MAX_DEPTH = 32

/** True when `schema` is certainly a valid 2020-12 schema; false when the full meta validator must decide. */
export function isPlainSchema(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true
  if (depth > MAX_DEPTH || !isPlainObject(schema)) return false
  for (const keyword in schema) {
    const check = KEYWORDS.get(keyword)
    if (!check || !check(schema[keyword], depth)) return false
  }
  return true
}
