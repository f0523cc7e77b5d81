/**
 * `"__proto__"` as a key of received JSON is data: `JSON.parse` makes it an own property, and the schema
 * validators check it like any key. What makes it dangerous is later code: `target[key] = value` on an
 * ordinary object, `Object.assign` or a deep merge call the inherited `__proto__` setter and change a
 * prototype instead of adding a property. So every object that holds such a key is handed on as a
 * null-prototype object: reading and writing its `__proto__` member reads and writes the own property, and
 * a merge into it changes nothing else. Objects without the key are left as parsed (and shared).
 */

const own = Object.prototype.hasOwnProperty

/**
 * `value` with every object that has an own `"__proto__"` key replaced by a null-prototype copy holding the
 * same keys (its ancestors are copied too, so the original is never changed); `value` itself when nothing
 * holds the key. Recursive: its callers pass values whose depth the input limits already bound.
 *
 * @example
 * ```ts
 * const args = withDataKeys(JSON.parse('{"doc":{"__proto__":{"x":1}}}') as Record<string, unknown>)
 * Object.getPrototypeOf(args.doc) // null: a merge into it cannot reach Object.prototype
 * ```
 */
export function withDataKeys<T>(value: T): T {
  return dataCopy(value) as T
}

function dataCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      const copy = dataCopy(item)
      if (copy !== item) (out ??= value.slice())[index] = copy
    }
    return out ?? value
  }
  const record = value as Record<string, unknown>
  if (own.call(record, '__proto__')) {
    // No prototype, so no inherited setter: assigning "__proto__" here defines the own property.
    const out = Object.create(null) as Record<string, unknown>
    for (const key of Object.keys(record)) out[key] = dataCopy(record[key])
    return out
  }
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(record)) {
    const child = record[key]
    const copy = dataCopy(child)
    // A spread defines properties (no setter runs), and this object has no "__proto__" key of its own.
    if (copy !== child) (out ??= { ...record })[key] = copy
  }
  return out ?? record
}
