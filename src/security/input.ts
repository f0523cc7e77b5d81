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
  const nodes: object[] = [params]
  const depths: number[] = [1]
  const guarded: boolean[] = [false]
  while (nodes.length > 0) {
    const node = nodes.pop() as object
    const depth = depths.pop() as number
    const guard = guarded.pop() as boolean
    if (depth > limits.maxDepth) return `params are nested deeper than ${limits.maxDepth} levels`
    const isArray = Array.isArray(node)
    if (guard && !isArray && own.call(node, '__proto__'))
      return 'the key "__proto__" is not allowed in arguments'
    const push = (child: unknown, childGuard: boolean): void => {
      if (typeof child !== 'object' || child === null) return
      nodes.push(child)
      depths.push(depth + 1)
      guarded.push(childGuard)
    }
    if (isArray) for (const child of node as unknown[]) push(child, guard)
    else
      for (const key of Object.keys(node))
        push((node as Record<string, unknown>)[key], guard || (depth === 1 && key === 'arguments'))
  }
  return undefined
}
