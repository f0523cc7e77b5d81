/** One-line summaries of a tool's input and output schemas for `toolwire list`: types, enums, defaults. */
type Schema = Record<string, unknown>

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `"add"|"sub"` for an enum or const, else the declared type(s), else `any`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join('|')
  if ('const' in schema) return JSON.stringify(schema.const)
  const type = schema.type
  if (Array.isArray(type)) return type.join('|')
  if (type === 'array' && isObject(schema.items)) return `${typeOf(schema.items)}[]`
  if (typeof type === 'string') return type
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key]
    if (Array.isArray(options)) return options.map((o) => (isObject(o) ? typeOf(o) : 'any')).join('|')
  }
  return 'any'
}

/** `label: name: type = default, other?: type`, or `label: type` for a schema that is not an object. */
export function describeSchema(schema: Schema, label: string): string[] {
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : []
  if (properties.length === 0)
    return schema.type === 'object' || label === 'args' ? [] : [`${label}: ${typeOf(schema)}`]
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const parts = properties.map(([name, property]) => {
    const detail = isObject(property) ? property : {}
    const fallback = 'default' in detail ? ` = ${JSON.stringify(detail.default)}` : ''
    return `${name}${required.has(name) ? '' : '?'}: ${typeOf(detail)}${fallback}`
  })
  return [`${label}: ${parts.join(', ')}`]
}
