/**
 * Request hardening that JSON Schema cannot express: a nesting-depth limit (deep structures are a cheap
 * way to exhaust recursive code) and no `__proto__` keys in tool or prompt `arguments`, which handlers
 * receive as plain objects (a merge there would change an object's prototype). Other params, such as MRTR
 * answers keyed by the server's own request keys, are read by toolwire as plain data and keep any key.
 * Walks iteratively, so the check itself cannot overflow the stack.
 */

export interface InputLimits {
  /** Deepest object/array nesting accepted in `params` (default 64). */
  readonly maxDepth: number
}

const own = Object.prototype.hasOwnProperty

export function inputProblem(params: unknown, limits: InputLimits): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined
  // One flat stack of (node, depth, guarded) triples: no per-node arrays or closures on the hot path.
  const stack: unknown[] = [params, 1, false]
  while (stack.length > 0) {
    const guard = stack.pop() as boolean
    const depth = stack.pop() as number
    const node = stack.pop() as object
    if (depth > limits.maxDepth) return `params are nested deeper than ${limits.maxDepth} levels`
    if (Array.isArray(node)) {
      for (const child of node as unknown[])
        if (typeof child === 'object' && child !== null) stack.push(child, depth + 1, guard)
      continue
    }
    if (guard && own.call(node, '__proto__')) return 'the key "__proto__" is not allowed in arguments'
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key]
      if (typeof child === 'object' && child !== null)
        stack.push(child, depth + 1, guard || (depth === 1 && key === 'arguments'))
    }
  }
  return undefined
}
