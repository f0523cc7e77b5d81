/**
 * Request hardening that JSON Schema cannot express: a nesting-depth limit (deep structures are a cheap
 * way to exhaust recursive code). A `"__proto__"` key in tool or prompt `arguments` is data, validated like
 * any key (server/tools §Error Handling: argument problems are the tool's to report, never a protocol
 * error); the walk that checks the depth notes it, and such objects reach handlers without a prototype
 * (wire/data-keys.ts). Other params, such as MRTR answers keyed by the server's own request keys, are read
 * by toolwire as plain data and keep any key. Walks iteratively, so the check itself cannot overflow the
 * stack.
 */

export interface InputLimits {
  /** Deepest object/array nesting accepted in `params` (default 64). */
  readonly maxDepth: number
}

const own = Object.prototype.hasOwnProperty

/**
 * The walk's stack of (node, depth, guarded) triples, reused and never shrunk: the check is synchronous, so
 * walks never overlap, and a stack per call was an allocation on every request. Slots are cleared as they
 * are popped, so no request's params outlive it here.
 */
const stack: unknown[] = []
const MAX_KEPT_SLOTS = 3 * 1024

/**
 * What the walk found: the depth problem, whether `arguments` hold a `"__proto__"` key somewhere, and
 * whether they hold a non-finite number (schema/finite.ts: JSON.parse turns `1e400` into Infinity).
 */
export interface InputScan {
  problem: string | undefined
  protoKey: boolean
  nonFinite: boolean
}

const scan: InputScan = { problem: undefined, protoKey: false, nonFinite: false }

/**
 * Walks `params` once. The answer is one object reused by every call (the check is synchronous): read it
 * before the next call. `depthChecked`: the transport already refused any message nested deeper than
 * `limits.maxDepth` on its raw text (wire/json-depth.ts), so only `arguments` are walked, for what the text
 * check cannot see.
 */
export function scanInput(params: unknown, limits: InputLimits, depthChecked = false): InputScan {
  scan.protoKey = false
  scan.nonFinite = false
  scan.problem = undefined
  if (typeof params !== 'object' || params === null) return scan
  if (!depthChecked) scan.problem = walk(params, limits.maxDepth, 1, false)
  else {
    const args = (params as Record<string, unknown>).arguments
    if (typeof args === 'object' && args !== null) walk(args, Infinity, 2, true)
  }
  return scan
}

/** The depth problem alone (tests and callers that only check). */
export function inputProblem(params: unknown, limits: InputLimits): string | undefined {
  return scanInput(params, limits).problem
}

/** `node` at `depth`; `guarded`: it is `arguments` or inside them. */
function walk(node: object, maxDepth: number, depth: number, guarded: boolean): string | undefined {
  stack[0] = node
  stack[1] = depth
  stack[2] = guarded
  let top = 3
  let problem: string | undefined
  while (top > 0) {
    const guard = stack[--top] as boolean
    const depth = stack[--top] as number
    const node = stack[--top] as object
    stack[top] = undefined
    if (problem !== undefined) continue // draining, so no reference stays behind
    if (depth > maxDepth) {
      problem = `params are nested deeper than ${maxDepth} levels`
      continue
    }
    if (Array.isArray(node)) {
      for (const child of node as unknown[]) {
        if (typeof child !== 'object' || child === null) {
          if (guard && typeof child === 'number' && !Number.isFinite(child)) scan.nonFinite = true
          continue
        }
        stack[top++] = child
        stack[top++] = depth + 1
        stack[top++] = guard
      }
      continue
    }
    if (guard && !scan.protoKey && own.call(node, '__proto__')) scan.protoKey = true
    // for-in uses V8's enum cache, so no key array is made per object; inherited keys are skipped.
    for (const key in node) {
      if (!own.call(node, key)) continue
      const child = (node as Record<string, unknown>)[key]
      if (typeof child !== 'object' || child === null) {
        if (guard && typeof child === 'number' && !Number.isFinite(child)) scan.nonFinite = true
        continue
      }
      stack[top++] = child
      stack[top++] = depth + 1
      stack[top++] = guard || (depth === 1 && key === 'arguments')
    }
  }
  // A rare huge message does not keep a huge stack alive.
  if (stack.length > MAX_KEPT_SLOTS) stack.length = 0
  return problem
}
