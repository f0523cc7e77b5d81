/**
 * A nesting-depth check on JSON text before it is parsed. `JSON.parse` of a body nested millions deep costs
 * far more CPU than a flat body of the same size and blocks the event loop; a depth limit checked after
 * parsing comes too late. This single pass over the characters counts `[`/`{` against `]`/`}` outside
 * strings and stops at the first level past the limit, so a too-deep message is refused at a cost linear in
 * (and usually far below) its size. Malformed JSON is left for `JSON.parse` to report.
 */

/** `security.maxDepth` when a server does not set it: how deep `params` may nest. */
export const DEFAULT_MAX_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/** Whether `text` nests objects/arrays more than `maxDepth` levels deep (the top-level value is level 1). */
export function nestedDeeperThan(text: string, maxDepth: number): boolean {
  // Fewer brackets than the limit cannot exceed it: most messages are decided by this native search alone.
  if (text.length <= maxDepth * 2 || !couldExceed(text, maxDepth)) return false
  let depth = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      // Skip the string: find its closing quote, stepping over escapes.
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i)
        if (inner === BACKSLASH) i++
        else if (inner === QUOTE) break
      }
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/**
 * The `id` member of the top-level object, found without parsing the rest (which may be too deep to parse),
 * so a refusal can still answer the request it refuses. Undefined when absent or not a string or number.
 */
export function topLevelId(text: string): string | number | undefined {
  let depth = 0
  let keyEnd = -1 // end of the last string read at depth 1, which may be a key
  const length = text.length
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      const start = i
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i)
        if (inner === BACKSLASH) i++
        else if (inner === QUOTE) break
      }
      if (depth === 1) keyEnd = text.slice(start, i + 1) === '"id"' ? i + 1 : -1
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++
      keyEnd = -1
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    } else if (code === 0x3a /* : */ && keyEnd !== -1 && depth === 1) {
      const value = /^\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
        text.slice(i + 1, i + 1 + 512),
      )
      if (!value) return undefined
      try {
        const id = JSON.parse(value[1] as string) as unknown
        return typeof id === 'string' || typeof id === 'number' ? id : undefined
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** A cheap upper bound: more than `maxDepth` opening brackets anywhere (strings included). */
function couldExceed(text: string, maxDepth: number): boolean {
  let count = 0
  for (let at = text.indexOf('{'); at !== -1 && count <= maxDepth; at = text.indexOf('{', at + 1)) count++
  for (let at = text.indexOf('['); at !== -1 && count <= maxDepth; at = text.indexOf('[', at + 1)) count++
  return count > maxDepth
}
