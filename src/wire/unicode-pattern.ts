/**
 * Regular expressions with Unicode property classes (`\p{L}`, `\p{Cf}` and the like), made on first use. V8 checks a
 * regular expression literal's syntax when it parses the file that holds it, whether or not the code around
 * it ever runs, and for a `\p{...}` class that check builds the class's whole Unicode table: the handful in
 * toolwire's server code cost a server about 11 million instructions at start-up before it answered anything.
 * A pattern made from its source text with `new RegExp` is parsed only when it is first made.
 */

/**
 * A function returning one regular expression built from `source` and `flags` the first time it is called.
 *
 * @example
 * ```ts
 * const letters = unicodePattern('\\p{L}+', 'gu')
 * 'ab 12 cd'.match(letters()) // ['ab', 'cd']
 * ```
 */
export function unicodePattern(source: string, flags: string): () => RegExp {
  let made: RegExp | undefined
  return () => (made ??= new RegExp(source, flags))
}
