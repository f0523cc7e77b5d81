/**
 * Request hardening that JSON Schema cannot express: a nesting-depth limit (deep structures are a cheap
 * way to exhaust recursive code) and no `__proto__` keys (a merge anywhere downstream would change an
 * object's prototype). Walks iteratively, so the check itself cannot overflow the stack.
 */

export interface InputLimits {
  /** Deepest object/array nesting accepted in `params` (default 64). */
  readonly maxDepth: number
}

export function inputProblem(value: unknown, limits: InputLimits): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const node = stack.pop() as object
    const depth = depths.pop() as number
    if (depth > limits.maxDepth) return `params are nested deeper than ${limits.maxDepth} levels`
    const children = Array.isArray(node) ? node : Object.values(node)
    if (!Array.isArray(node) && Object.prototype.hasOwnProperty.call(node, '__proto__'))
      return 'the key "__proto__" is not allowed'
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return undefined
}
