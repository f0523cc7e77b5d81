/**
 * Arguments back into an HTTP request, each parameter serialised as its `style` and `explode` say
 * (OpenAPI 3.1 §Style Values, §Style Examples): `simple`, `label`, `matrix` in paths, `form`,
 * `spaceDelimited`, `pipeDelimited`, `deepObject` in queries, `simple` in headers, `form` in cookies.
 */
import { ToolError } from '../features/tools/errors.js'
import { isNode } from './document.js'
import type { ParameterBinding, RequestPlan } from './input.js'
import { isJsonMediaType } from './input.js'
import type { HttpMethod } from './operations.js'
import { joinPath } from './url.js'

export interface BuiltRequest {
  readonly method: string
  /** The server URL the request is built on: credentials go to its origin only (call.ts). */
  readonly base: URL
  readonly url: URL
  readonly headers: Headers
  readonly body: string | FormData | undefined
}

type Value = unknown

const text = (value: Value): string =>
  typeof value === 'string'
    ? value
    : value === null || typeof value !== 'object'
      ? String(value)
      : JSON.stringify(value)

const encode = (value: string, allowReserved = false): string =>
  allowReserved ? encodeURI(value).replace(/%25([0-9A-F]{2})/gi, '%$1') : encodeURIComponent(value)

/** The entries of an object value, or the items of an array value, as strings. */
const entries = (value: Record<string, Value>): [string, string][] =>
  Object.entries(value).map(([key, item]) => [key, text(item)])

/** A path parameter's text, already percent-encoded. */
function pathValue(binding: ParameterBinding, value: Value): string {
  const { style, explode, name } = binding
  const items = Array.isArray(value) ? value.map((item) => encode(text(item))) : undefined
  const pairs = isNode(value) ? entries(value).map(([k, v]) => [encode(k), encode(v)] as const) : undefined
  const joined = (separator: string, pairJoin: string): string =>
    items
      ? items.join(separator)
      : pairs
        ? pairs.map(([k, v]) => (explode ? `${k}=${v}` : `${k}${pairJoin}${v}`)).join(separator)
        : encode(text(value))
  switch (style) {
    case 'label':
      return `.${joined(explode ? '.' : ',', ',')}`
    case 'matrix': {
      const key = encode(name)
      if (items)
        return explode ? items.map((item) => `;${key}=${item}`).join('') : `;${key}=${items.join(',')}`
      if (pairs)
        return explode
          ? pairs.map(([k, v]) => `;${k}=${v}`).join('')
          : `;${key}=${pairs.map(([k, v]) => `${k},${v}`).join(',')}`
      return `;${key}=${encode(text(value))}`
    }
    default:
      return joined(',', ',')
  }
}

/** A query (or form) parameter's `name=value` pairs, already percent-encoded. */
function queryPairs(binding: ParameterBinding, value: Value): string[] {
  const { style, explode, name, allowReserved } = binding
  const key = encode(name)
  const enc = (part: string): string => encode(part, allowReserved)
  if (binding.json) return [`${key}=${enc(JSON.stringify(value))}`]
  if (Array.isArray(value)) {
    const items = value.map((item) => enc(text(item)))
    if (style === 'form' && explode) return items.map((item) => `${key}=${item}`)
    const separator =
      style === 'spaceDelimited'
        ? '%20'
        : style === 'pipeDelimited'
          ? '|'
          : style === 'tabDelimited'
            ? '%09'
            : ','
    return [`${key}=${items.join(separator)}`]
  }
  if (isNode(value)) {
    const pairs = entries(value)
    if (style === 'deepObject') return pairs.map(([k, v]) => `${key}%5B${encode(k)}%5D=${enc(v)}`)
    if (explode) return pairs.map(([k, v]) => `${encode(k)}=${enc(v)}`)
    return [`${key}=${pairs.map(([k, v]) => `${enc(k)},${enc(v)}`).join(',')}`]
  }
  return [`${key}=${enc(text(value))}`]
}

/** A header parameter's value (`simple` style). */
function headerValue(binding: ParameterBinding, value: Value): string {
  if (binding.json) return JSON.stringify(value)
  if (Array.isArray(value)) return value.map(text).join(',')
  if (isNode(value))
    return entries(value)
      .map(([k, v]) => (binding.explode ? `${k}=${v}` : `${k},${v}`))
      .join(',')
  return text(value)
}

export function buildRequest(
  base: URL,
  method: HttpMethod,
  path: string,
  plan: RequestPlan,
  args: Record<string, unknown>,
): BuiltRequest {
  const pathValues = new Map<string, string>()
  const query: string[] = []
  const cookies: string[] = []
  const headers = new Headers()
  const form: [string, string][] = []
  for (const binding of plan.parameters) {
    const value = args[binding.arg]
    if (value === undefined) continue
    switch (binding.in) {
      case 'path': {
        const text = pathValue(binding, value)
        // A `..` segment would climb out of the operation's path once the URL is normalised (RFC 3986
        // §5.2.4), and URL parsers count `%2e%2e` as one too: such an argument reaches another endpoint.
        if (/^(?:\.|%2e){1,2}$/i.test(text) || text === '')
          throw new ToolError(`path parameter ${binding.name} may not be empty, "." or ".."`)
        pathValues.set(binding.name, text)
        break
      }
      case 'query':
        query.push(...queryPairs(binding, value))
        break
      case 'header':
        headers.set(binding.name, headerValue(binding, value))
        break
      case 'cookie':
        cookies.push(
          ...queryPairs({ ...binding, style: 'form', explode: false }, value).map((pair) =>
            pair.replace(/%2C/g, ','),
          ),
        )
        break
      case 'formData':
        for (const pair of Array.isArray(value) && binding.style === 'form' && binding.explode
          ? value
          : [value])
          form.push([binding.name, Array.isArray(pair) ? pair.map(text).join(',') : text(pair)])
        break
    }
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '))
  const url = joinPath(base, path, pathValues)
  if (query.length > 0) url.search = `${url.search ? `${url.search.slice(1)}&` : ''}${query.join('&')}`
  let body: string | FormData | undefined
  const value = plan.body && bodyValue(plan, args)
  if (plan.body && value !== undefined) {
    const mediaType = plan.body.mediaType
    if (isJsonMediaType(mediaType)) {
      body = JSON.stringify(value)
      headers.set('content-type', mediaType === '*/*' ? 'application/json' : mediaType)
    } else if (mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data') {
      const fields = isNode(value) ? entries(value) : [['value', text(value)] as [string, string]]
      body = formBody(mediaType, fields, headers)
    } else {
      body = text(value)
      headers.set('content-type', mediaType)
    }
  } else if (plan.formMediaType && form.length > 0) {
    body = formBody(plan.formMediaType, form, headers)
  }
  return { method: method.toUpperCase(), base, url, headers, body }
}

/** The body's value: its argument, or for a flat body the object its arguments make. */
function bodyValue(plan: RequestPlan, args: Record<string, unknown>): unknown {
  const binding = plan.body
  if (binding === undefined) return undefined
  const { flat, arg } = binding
  if (flat === undefined) return arg === undefined ? undefined : args[arg]
  const value: Record<string, unknown> = {}
  let given = false
  for (const name of flat.properties)
    if (args[name] !== undefined) {
      value[name] = args[name]
      given = true
    }
  const nested = arg === undefined ? undefined : args[arg]
  if (isNode(nested)) {
    Object.assign(value, nested)
    given = true
  }
  if (flat.extra) {
    const known = new Set([...plan.parameters.map((parameter) => parameter.arg), ...flat.properties, arg])
    for (const [name, item] of Object.entries(args))
      if (!known.has(name) && item !== undefined) {
        value[name] = item
        given = true
      }
  }
  return given || flat.required ? value : undefined
}

function formBody(mediaType: string, fields: [string, string][], headers: Headers): string | FormData {
  if (mediaType === 'multipart/form-data') {
    const data = new FormData()
    for (const [name, value] of fields) data.append(name, value)
    return data // fetch sets the content type with its boundary
  }
  headers.set('content-type', mediaType)
  return new URLSearchParams(fields).toString()
}
