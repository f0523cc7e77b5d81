/**
 * Equality of JSON values as JSON Schema defines it for `const`, `enum` and `uniqueItems` (JSON Schema Core
 * 2020-12 §4.2.2, Instance Equality): same type and same value, objects by their members whatever their
 * order, arrays item by item. The generated meta-schema validator uses it: ajv's standalone code would
 * `require` its CommonJS fast-deep-equal, and the first CommonJS module a process loads starts Node's
 * CommonJS loader, a noticeable part of a server's start-up.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, index) => jsonEqual(item, b[index]))
  }
  if (Array.isArray(b)) return false
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
}
