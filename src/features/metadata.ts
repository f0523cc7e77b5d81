/**
 * Checks the descriptive fields of a tool, prompt, resource or implementation against the shapes the
 * specification's schema gives them (`Icon`, `ToolAnnotations`, `Annotations`, `BaseMetadata`), once, when
 * the server is defined: a definition that would publish a malformed field fails at startup.
 */
import { isRecord } from '../wire/jsonrpc.js'
import { metaKeyProblem } from '../wire/meta-keys.js'

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

/** `_meta` is an object whose keys follow the key-name rules (wire/meta-keys.ts). */
function metaProblems(problems: string[], meta: unknown): void {
  if (meta === undefined) return
  if (!isRecord(meta)) return void problems.push(`_meta must be an object, not ${describe(meta)}`)
  for (const key of Object.keys(meta)) {
    const problem = metaKeyProblem(key)
    if (problem) problems.push(`_meta key ${JSON.stringify(key)} is invalid: ${problem}`)
  }
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

/** A website a client may show as a link: an absolute http(s) URL, never `javascript:`, `data:` or `file:`. */
const WEBSITE = /^https?:\/\/[^\s/?#]+[^\s]*$/i

/**
 * The server's own description, as `server/discover` and `initialize` publish it: every field of
 * `Implementation` (`name` and `version` non-empty strings; `title`, `description` strings; `websiteUrl`
 * an http(s) URL; `icons` as for tools) and `instructions`, a string (schema `Implementation`,
 * `DiscoverResult.instructions`).
 */
export function implementationProblems(config: {
  readonly name?: unknown
  readonly version?: unknown
  readonly title?: unknown
  readonly description?: unknown
  readonly websiteUrl?: unknown
  readonly icons?: unknown
  readonly instructions?: unknown
}): string[] {
  const problems: string[] = []
  for (const field of ['name', 'version'] as const) {
    const value = config[field]
    if (typeof value !== 'string' || value.trim() === '')
      problems.push(`${field} must be a non-empty string, not ${describe(value)}`)
  }
  problems.push(
    ...baseProblems({ title: config.title, description: config.description, icons: config.icons }),
  )
  const { websiteUrl } = config
  if (websiteUrl !== undefined && !(typeof websiteUrl === 'string' && WEBSITE.test(websiteUrl)))
    problems.push(`websiteUrl must be an http: or https: URL, not ${describe(websiteUrl)}`)
  optionalString(problems, 'instructions', config.instructions)
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
