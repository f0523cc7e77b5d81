/**
 * RFC 6570 URI templates, matched in reverse: which variables would expand to this URI? Supports simple
 * `{var}` (level 1), reserved `{+var}`, fragment `{#var}` (level 2), and path `{/var}`, label `{.var}` and
 * query `{?a,b}` / `{&a}` expressions (level 3) as resource templates use them.
 */
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/**
 * A malformed RFC 6570 URI template, thrown by `compileUriTemplate` and `defineResourceTemplate`.
 *
 * @example
 * ```ts
 * try {
 *   compileUriTemplate('notes://{id')
 * } catch (error) {
 *   if (error instanceof UriTemplateError) console.error(error.message) // Malformed URI template notes://{id
 * }
 * ```
 */
export class UriTemplateError extends ToolwireError {
  override readonly name = 'UriTemplateError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_URI_TEMPLATE'
  }
}

export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  /** The variables of a URI this template produces, or undefined when it cannot produce it. */
  match(uri: string): Record<string, string> | undefined
}

const EXPRESSION = /\{([+#./?&]?)([A-Za-z0-9_.%,]+)\}/g
const VARNAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.%]*[A-Za-z0-9_])?$/

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

/**
 * Compiles an RFC 6570 URI template for matching URIs against it (what resource templates do); throws `UriTemplateError`.
 *
 * @example
 * ```ts
 * const template = compileUriTemplate('notes://{folder}/{id}')
 * template.match('notes://work/42') // { folder: 'work', id: '42' }
 * ```
 */
export function compileUriTemplate(template: string): UriTemplate {
  if (typeof template !== 'string' || template === '') throw new UriTemplateError('URI template is empty')
  const variables: string[] = []
  const groups: { name: string; query: boolean }[] = []
  let pattern = '^'
  let last = 0
  for (const match of template.matchAll(EXPRESSION)) {
    const [whole, operator = '', list = ''] = match
    const literal = template.slice(last, match.index)
    if (/[{}]/.test(literal)) throw new UriTemplateError(`Malformed URI template ${template}`)
    pattern += escapeRegex(literal)
    last = match.index + whole.length
    const names = list.split(',')
    for (const name of names) {
      if (!VARNAME.test(name)) throw new UriTemplateError(`Bad variable name ${name} in ${template}`)
      if (variables.includes(name)) throw new UriTemplateError(`Variable ${name} repeats in ${template}`)
      variables.push(name)
    }
    if (operator === '?' || operator === '&') {
      // Query parameters are matched by name afterwards; here only their presence in the URI.
      pattern += `(?:[?&][^#]*)?`
      for (const name of names) groups.push({ name, query: true })
      continue
    }
    if (names.length > 1) throw new UriTemplateError(`Only one variable per {${operator}…} in ${template}`)
    const name = names[0] as string
    const body = operator === '+' || operator === '#' ? '[^?#]*?' : '[^/?#]+?'
    const lead = operator === '+' || operator === '' ? '' : escapeRegex(operator)
    pattern += `${lead}(${body})`
    groups.push({ name, query: false })
  }
  const tail = template.slice(last)
  if (/[{}]/.test(tail)) throw new UriTemplateError(`Malformed URI template ${template}`)
  pattern += `${escapeRegex(tail)}$`
  const regex = new RegExp(pattern)
  const queryNames = groups.filter((group) => group.query).map((group) => group.name)
  const pathGroups = groups.filter((group) => !group.query)
  return {
    template,
    variables,
    match(uri) {
      const found = regex.exec(uri)
      if (!found) return undefined
      const values: Record<string, string> = {}
      for (let i = 0; i < pathGroups.length; i++) {
        const value = decode(found[i + 1] ?? '')
        if (value === undefined) return undefined
        values[(pathGroups[i] as { name: string }).name] = value
      }
      if (queryNames.length > 0) {
        const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1).split('#')[0] : ''
        for (const [key, value] of new URLSearchParams(query))
          if (queryNames.includes(key)) values[key] = value
      }
      return values
    },
  }
}
