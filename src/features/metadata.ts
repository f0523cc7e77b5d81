/**
 * Checks the descriptive fields of a tool, prompt, resource or implementation against the shapes the
 * specification's schema gives them (`Icon`, `ToolAnnotations`, `Annotations`, `BaseMetadata`), once, when
 * the server is defined: a definition that would publish a malformed field fails at startup.
 */
import { isRecord } from '../wire/jsonrpc.js'

/**
 * Icon sources: an HTTPS URL or a `data:` URI. Consumers must ensure exactly that and reject every other
 * scheme (`javascript:`, `file:`, `http:` …; basic §icons, Security considerations), so publishing one is a bug.
 */
const ICON_SOURCE = /^(?:https:\/\/[^\s]+|data:[^,\s]*,[^\s]*)$/i
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

const describe = (value: unknown): string => JSON.stringify(value) ?? String(value)

function optionalString(problems: string[], where: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string')
    problems.push(`${where} must be a string, not ${describe(value)}`)
}

function iconProblems(problems: string[], icons: unknown): void {
  if (icons === undefined) return
  if (!Array.isArray(icons)) return void problems.push(`icons must be an array, not ${describe(icons)}`)
  icons.forEach((icon: unknown, index) => {
    const at = `icons[${index}]`
    if (!isRecord(icon)) return void problems.push(`${at} must be an object with a src`)
    if (typeof icon.src !== 'string' || !ICON_SOURCE.test(icon.src)) {
      problems.push(`${at}.src must be an https: URL or a data: URI, not ${describe(icon.src)}`)
    }
    optionalString(problems, `${at}.mimeType`, icon.mimeType)
    if (
      icon.sizes !== undefined &&
      !(Array.isArray(icon.sizes) && icon.sizes.every((size) => typeof size === 'string'))
    ) {
      problems.push(`${at}.sizes must be an array of strings such as "48x48" or "any"`)
    }
    if (icon.theme !== undefined && icon.theme !== 'light' && icon.theme !== 'dark')
      problems.push(`${at}.theme must be "light" or "dark", not ${describe(icon.theme)}`)
  })
}

function metaProblems(problems: string[], meta: unknown): void {
  if (meta !== undefined && !isRecord(meta)) problems.push(`_meta must be an object, not ${describe(meta)}`)
}

/** `title`, `description`, `icons`, `_meta`: the fields every definition may carry. */
export function baseProblems(config: {
  readonly title?: unknown
  readonly description?: unknown
  readonly icons?: unknown
  readonly _meta?: unknown
}): string[] {
  const problems: string[] = []
  optionalString(problems, 'title', config.title)
  optionalString(problems, 'description', config.description)
  iconProblems(problems, config.icons)
  metaProblems(problems, config._meta)
  return problems
}

/** A tool's `annotations` (schema `ToolAnnotations`): an optional title and boolean hints. */
export function toolAnnotationProblems(annotations: unknown): string[] {
  if (annotations === undefined) return []
  if (!isRecord(annotations)) return [`annotations must be an object, not ${describe(annotations)}`]
  const problems: string[] = []
  optionalString(problems, 'annotations.title', annotations.title)
  for (const hint of HINTS) {
    const value = annotations[hint]
    if (value !== undefined && typeof value !== 'boolean')
      problems.push(`annotations.${hint} must be true or false, not ${describe(value)}`)
  }
  return problems
}

/** A resource's `annotations` (schema `Annotations`): audience roles, a priority in [0, 1], a timestamp. */
export { annotationProblems } from '../wire/annotations.js'

/** A cache scope (list results, discovery): "public" or "private". */
export function cacheScopeProblem(scope: unknown, where: string): string | undefined {
  return scope === undefined || scope === 'public' || scope === 'private'
    ? undefined
    : `${where} must be "public" or "private", not ${describe(scope)}`
}
