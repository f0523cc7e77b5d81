/**
 * The `_meta` key-name rules (basic/index §_meta, "Key name format"): an optional prefix of dot-separated
 * labels ending in `/` (each label starts with a letter, ends with a letter or digit, and has only letters,
 * digits and hyphens between), then a name that, unless empty, starts and ends with a letter or digit and
 * has only letters, digits, hyphens, underscores and dots between. A prefix whose second label is
 * `modelcontextprotocol` or `mcp` is reserved for MCP itself.
 */

const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
const PREFIX = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`)
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/
const RESERVED = new Set(['modelcontextprotocol', 'mcp'])

/**
 * Why `key` is not a `_meta` key a definition may publish, or undefined when it is.
 *
 * @example
 * ```ts
 * metaKeyProblem('com.example/region') // undefined
 * metaKeyProblem('io.modelcontextprotocol/mine') // 'its prefix io.modelcontextprotocol/ is reserved for MCP'
 * ```
 */
export function metaKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/')
  const name = slash === -1 ? key : key.slice(slash + 1)
  if (slash !== -1) {
    const prefix = key.slice(0, slash)
    if (!PREFIX.test(prefix))
      return 'its prefix must be dot-separated labels (letters, digits, hyphens; starting with a letter, ending with a letter or digit) followed by "/"'
    const second = prefix.split('.')[1]
    if (second !== undefined && RESERVED.has(second.toLowerCase()))
      return `its prefix ${prefix}/ is reserved for MCP`
  }
  if (!NAME.test(name))
    return 'its name must start and end with a letter or digit, with only letters, digits, "-", "_" and "." between'
  return undefined
}
