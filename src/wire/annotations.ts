/**
 * The `Annotations` object of content blocks and resources (schema `Annotations`): `audience` lists only the
 * roles `user` and `assistant`, `priority` is a number from 0 to 1, `lastModified` an ISO 8601 timestamp.
 * Shared by the server (definitions and every result it sends) and the client (every result it accepts), so
 * a model never sees an audience or priority the specification does not define.
 */

/**
 * An ISO 8601 date and time with seconds and an offset ("2025-01-12T15:00:58Z", "…58.123+02:00"): the form
 * the schema's `lastModified` example takes, and the one the official SDKs accept (a date alone they refuse).
 */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/

const describe = (value: unknown): string => JSON.stringify(value) ?? String(value)

const isRole = (role: unknown): boolean => role === 'user' || role === 'assistant'

/** The problems of one `annotations` value, each prefixed with `at` (`annotations`, `content[0].annotations`). */
export function annotationProblems(annotations: unknown, at = 'annotations'): string[] {
  if (annotations === undefined) return []
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
    return [`${at} must be an object, not ${describe(annotations)}`]
  const problems: string[] = []
  const { audience, priority, lastModified } = annotations as Record<string, unknown>
  if (audience !== undefined && !(Array.isArray(audience) && audience.every(isRole)))
    problems.push(`${at}.audience must list "user" and/or "assistant", not ${describe(audience)}`)
  if (priority !== undefined && !(typeof priority === 'number' && priority >= 0 && priority <= 1))
    problems.push(`${at}.priority must be a number from 0 to 1, not ${describe(priority)}`)
  if (
    lastModified !== undefined &&
    !(
      typeof lastModified === 'string' &&
      ISO_8601.test(lastModified) &&
      !Number.isNaN(Date.parse(lastModified))
    )
  )
    problems.push(`${at}.lastModified must be an ISO 8601 timestamp, not ${describe(lastModified)}`)
  return problems
}

/**
 * The first annotation problem among content blocks (every block type may carry `annotations`), or undefined.
 * Reads one property per block when there are none: this runs on every result.
 */
export function contentAnnotationProblem(content: readonly unknown[]): string | undefined {
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as { annotations?: unknown } | null | undefined
    if (typeof block !== 'object' || block === null || block.annotations === undefined) continue
    const problems = annotationProblems(block.annotations, `content[${index}].annotations`)
    if (problems.length > 0) return problems.join('; ')
  }
  return undefined
}
