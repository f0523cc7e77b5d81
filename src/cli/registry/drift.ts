/**
 * `toolwire registry --check`: what differs between the `server.json` on disk and the one that would be
 * written now, said field by field, so CI fails with the reason (a version bump without a new server.json, a
 * tool added or removed) instead of a bare "differs".
 */
import { PUBLISHER_META_KEY, type ServerJson } from './server-json.js'

const json = (value: unknown): string => JSON.stringify(value)

const recordOf = (document: unknown): Record<string, unknown> | undefined => {
  const meta = (document as { _meta?: unknown })._meta
  const record =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[PUBLISHER_META_KEY]
      : undefined
  return typeof record === 'object' && record !== null ? (record as Record<string, unknown>) : undefined
}

const names = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined

/** Each difference, one line each; empty when `existing` is up to date. */
export function driftOf(existing: unknown, wanted: ServerJson): string[] {
  if (typeof existing !== 'object' || existing === null || Array.isArray(existing))
    return ['server.json is not a JSON object']
  const found = existing as Record<string, unknown>
  const problems: string[] = []
  if (found.name !== wanted.name) problems.push(`name is ${json(found.name)}, should be ${json(wanted.name)}`)
  if (found.version !== wanted.version)
    problems.push(`version is ${json(found.version)}, package.json says ${json(wanted.version)}`)
  const packages = Array.isArray(found.packages) ? (found.packages as unknown[]) : []
  packages.forEach((entry, index) => {
    const version = (entry as { version?: unknown } | null)?.version
    if (version !== undefined && version !== wanted.version)
      problems.push(
        `packages[${index}].version is ${json(version)}, package.json says ${json(wanted.version)}`,
      )
  })
  // Tools are compared only when the file on disk records them: a hand-written server.json has no such record.
  const before = recordOf(found)
  const after = wanted._meta?.[PUBLISHER_META_KEY]
  if (before && after) {
    const had = names(before.tools)
    const has = names(after.tools)
    if (had && has) {
      const added = has.filter((name) => !had.includes(name))
      const removed = had.filter((name) => !has.includes(name))
      if (added.length > 0) problems.push(`tools added since: ${added.join(', ')}`)
      if (removed.length > 0) problems.push(`tools removed since: ${removed.join(', ')}`)
    } else if ((before.toolsDigest ?? before.tools) !== undefined && json(before) !== json(after)) {
      problems.push('the tools differ from those recorded (digest changed)')
    }
  }
  return problems
}
