/** Name globs: a gateway member's and a gateway profile's `include` / `exclude` lists. */

/**
 * A glob over names: `*` any run of characters, `?` one character, everything else literal. The gateway's
 * `include`/`exclude` lists use it.
 *
 * @example
 * ```ts
 * const offered = globMatcher(['read_*', 'list_?'])
 * offered('read_file') // true
 * offered('write_file') // false
 * ```
 */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  const patterns = globs.map(
    (glob) =>
      new RegExp(
        `^${[...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')}$`,
        's',
      ),
  )
  return (name) => patterns.some((pattern) => pattern.test(name))
}

/** What an `include` / `exclude` pair lets through: everything when `include` is absent or empty. */
export function nameFilter(filter: {
  readonly include?: readonly string[] | undefined
  readonly exclude?: readonly string[] | undefined
}): (name: string) => boolean {
  const included = filter.include && filter.include.length > 0 ? globMatcher(filter.include) : () => true
  const excluded = filter.exclude && filter.exclude.length > 0 ? globMatcher(filter.exclude) : () => false
  return (name) => included(name) && !excluded(name)
}
