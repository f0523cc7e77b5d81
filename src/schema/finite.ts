/**
 * JSON has no Infinity or NaN, but `JSON.parse('{"i":1e400}')` gives `{ i: Infinity }`, which both
 * validators accept as a number and as an integer: a handler would receive a value the sender never wrote,
 * and JSON.stringify writes it back as `null`. So a value holding a non-finite number is refused wherever a
 * schema checks it (server/tools §Error Handling: invalid arguments are a tool error the model can see).
 */

/** The dotted path of the first non-finite number in `value` (`''` for the value itself), or undefined. */
export function nonFiniteAt(value: unknown): string | undefined {
  // A plain walk first (almost every value has none), the path only once one is found.
  return hasNonFinite(value) ? pathTo(value, '') : undefined
}

/**
 * Whether any number in `value` is not finite. Only nested objects are kept to visit later: a flat value
 * (nearly every argument and result) costs the loop over its members and makes no array.
 */
function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value)
  if (typeof value !== 'object' || value === null) return false
  let node: object = value
  let later: object[] | undefined
  for (;;) {
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) {
        if (typeof item === 'number') {
          if (!Number.isFinite(item)) return true
        } else if (typeof item === 'object' && item !== null) (later ??= []).push(item)
      }
    } else {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue
        const item = (node as Record<string, unknown>)[key]
        if (typeof item === 'number') {
          if (!Number.isFinite(item)) return true
        } else if (typeof item === 'object' && item !== null) (later ??= []).push(item)
      }
    }
    const next = later?.pop()
    if (next === undefined) return false
    node = next
  }
}

function pathTo(value: unknown, path: string): string | undefined {
  const stack: [unknown, string][] = [[value, path]]
  while (stack.length > 0) {
    const [node, at] = stack.pop() as [unknown, string]
    if (typeof node === 'number' && !Number.isFinite(node)) return at
    if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) stack.push([child, at ? `${at}.${key}` : key])
    }
  }
  return undefined
}
