/**
 * Argument names a tool's input schema does not declare, with the declared name each was probably meant to
 * be. A tool whose schema allows other properties takes a misspelt name silently (server/tools §Tool: the
 * input schema is the tool's own JSON Schema, and JSON Schema allows any other property unless
 * `additionalProperties` says otherwise), so the CLI says so before it sends the call.
 */

type Schema = Record<string, unknown>

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(
        (rows[i - 1]?.[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (rows[i - 1]?.[j - 1] ?? 0) + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return rows[a.length]?.[b.length] ?? 0
}

/**
 * The declared name closest to `name`, when close enough to be a slip: the same name in another case, or
 * one whose edit distance leaves more than 40% of the longer name in common (the bar commander uses for
 * its "Did you mean" on commands and options).
 */
export function closestName(name: string, declared: readonly string[]): string | undefined {
  const sameCase = declared.find((candidate) => candidate.toLowerCase() === name.toLowerCase())
  if (sameCase !== undefined) return sameCase
  let best: { name: string; distance: number } | undefined
  for (const candidate of declared) {
    const length = Math.max(name.length, candidate.length)
    // The distance is at least the difference in length: a name that much longer (a hostile server's
    // megabyte-long property) cannot clear the bar, and is never measured.
    if ((length - Math.abs(name.length - candidate.length)) / length <= 0.4) continue
    const distance = editDistance(name, candidate)
    if ((length - distance) / length <= 0.4) continue
    if (best === undefined || distance < best.distance) best = { name: candidate, distance }
  }
  return best?.name
}

/** Whether `key` matches one of the schema's `patternProperties` (a pattern this engine refuses counts). */
function matchesPattern(key: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    try {
      return new RegExp(pattern, 'u').test(key)
    } catch {
      return true
    }
  })
}

/**
 * One warning per argument name the input schema does not declare. Nothing is said when the schema declares
 * no properties (there is nothing to compare with) or gives other properties a schema of their own (a map:
 * any name is meant).
 */
export function undeclaredArguments(
  toolName: string,
  args: Readonly<Record<string, unknown>>,
  inputSchema: Schema | undefined,
): string[] {
  const properties = inputSchema?.properties
  const declared =
    typeof properties === 'object' && properties !== null && !Array.isArray(properties)
      ? Object.keys(properties)
      : []
  const patternProperties = inputSchema?.patternProperties
  const patterns =
    typeof patternProperties === 'object' && patternProperties !== null ? Object.keys(patternProperties) : []
  const additional = inputSchema?.additionalProperties
  if (declared.length === 0 && patterns.length === 0) return []
  if (typeof additional === 'object' && additional !== null) return []
  const refused = additional === false ? ' (the schema allows no others, so the server will refuse it)' : ''
  return Object.keys(args)
    .filter((key) => !declared.includes(key) && !matchesPattern(key, patterns))
    .map((key) => {
      const closest = closestName(key, declared)
      const hint =
        closest !== undefined
          ? `; did you mean '${closest}'?`
          : declared.length > 0
            ? `; it declares ${declared.map((name) => `'${name}'`).join(', ')}`
            : ''
      return `argument '${key}' is not declared by ${toolName}${refused}${hint}`
    })
}
