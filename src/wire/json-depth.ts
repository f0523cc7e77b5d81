/**
 * A nesting-depth check on JSON text before it is parsed. `JSON.parse` of a body nested millions deep costs
 * far more CPU than a flat body of the same size and blocks the event loop; a depth limit checked after
 * parsing comes too late. This single pass over the characters counts `[`/`{` against `]`/`}` outside
 * strings and stops at the first level past the limit, so a too-deep message is refused at a cost linear in
 * (and usually far below) its size. Malformed JSON is left for `JSON.parse` to report.
 */

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

/** A cheap upper bound: more than `maxDepth` opening brackets anywhere (strings included). */
function couldExceed(text: string, maxDepth: number): boolean {
  let count = 0
  for (let at = text.indexOf('{'); at !== -1 && count <= maxDepth; at = text.indexOf('{', at + 1)) count++
  for (let at = text.indexOf('['); at !== -1 && count <= maxDepth; at = text.indexOf('[', at + 1)) count++
  return count > maxDepth
}
