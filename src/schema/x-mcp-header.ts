/**
 * `x-mcp-header`: the rules a tool's annotations must meet (shared by the server at definition time and
 * the client when it filters `tools/list`), and the value encoding of `Mcp-Param-*` / `Mcp-Name` headers.
 */
import { base64ToBytes, bytesToBase64 } from '../wire/base64.js'

export type HeaderParamType = 'string' | 'integer' | 'boolean'

/** One annotated property: the header suffix, the `properties` path to the value and its type. */
export interface HeaderParam {
  readonly header: string
  readonly path: readonly string[]
  readonly type: HeaderParamType
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVES = new Set<string>(['string', 'integer', 'boolean'])
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function paramType(schema: Record<string, unknown>): HeaderParamType | string {
  const type = schema.type
  if (typeof type === 'string') return PRIMITIVES.has(type) ? (type as HeaderParamType) : `type '${type}'`
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null')
    if (nonNull.length === 1 && PRIMITIVES.has(String(nonNull[0])) && type.length <= 2) {
      return nonNull[0] as HeaderParamType
    }
    return `type ${JSON.stringify(type)}`
  }
  return 'no type'
}

/** The annotation by which a definition states that a secret-looking header parameter is not a secret. */
export const SENSITIVE_OPT_OUT = 'x-mcp-header-sensitive'

/** Words of a parameter name that name a secret (`password`, `clientSecret`, `access_token`, `X-Api-Key` …). */
const SECRET_WORD =
  /(?:^|_)(?:password|passwd|passphrase|secret|token|credentials?|api_?key|private_?key|access_?key|authorization|cookie)(?:_|$)/

/** `apiKey`, `api-key`, `API_KEY` and `api key` all become `api_key`. */
const words = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase()

/**
 * Why a header parameter looks like it holds a secret, or undefined. Servers should not mark sensitive
 * parameters (passwords, API keys, tokens) with `x-mcp-header`, as header values are visible to network
 * intermediaries (server/tools §x-mcp-header); toolwire refuses it on both sides rather than leave it to
 * care. A definition states that a secret-looking parameter holds no secret with
 * `"x-mcp-header-sensitive": false` on the property; `true` marks any property as a secret.
 */
function secretLooking(name: string, schema: Record<string, unknown>): string | undefined {
  const declared = schema[SENSITIVE_OPT_OUT]
  if (declared === false) return undefined
  if (declared === true) return `"${SENSITIVE_OPT_OUT}": true`
  if (schema.format === 'password') return 'format "password"'
  if (schema.writeOnly === true) return 'writeOnly'
  return SECRET_WORD.test(words(name)) ? `its name ${JSON.stringify(name)}` : undefined
}

/**
 * Finds every `x-mcp-header` annotation in an input schema and checks the spec's rules, and refuses a
 * parameter that looks secret (see `secretLooking`).
 * Returns the header parameters, or the reasons the tool definition is invalid.
 */
export function scanHeaderParams(inputSchema: unknown): { params: HeaderParam[]; problems: string[] } {
  const params: HeaderParam[] = []
  const problems: string[] = []
  const seen = new Map<string, string>()

  const visit = (node: unknown, path: string[], reachable: boolean, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((child, index) => visit(child, path, false, `${where}/${index}`))
      return
    }
    if (!isObject(node)) return
    if ('x-mcp-header' in node) {
      const value = node['x-mcp-header']
      const at = where || '/'
      if (!reachable || path.length === 0) {
        problems.push(`x-mcp-header at ${at} is not on a property reachable through 'properties' only`)
      } else if (typeof value !== 'string' || value === '') {
        problems.push(`x-mcp-header at ${at} must be a non-empty string`)
      } else if (!TOKEN.test(value)) {
        problems.push(`x-mcp-header ${JSON.stringify(value)} at ${at} is not an RFC 9110 token`)
      } else {
        const type = paramType(node)
        const lower = value.toLowerCase()
        const secret = secretLooking(path[path.length - 1] ?? '', node)
        if (!PRIMITIVES.has(type)) {
          problems.push(
            `x-mcp-header ${JSON.stringify(value)} at ${at} needs type string, integer or boolean (${type})`,
          )
        } else if (secret !== undefined) {
          problems.push(
            `x-mcp-header ${JSON.stringify(value)} at ${at} would copy a secret-looking parameter (${secret}) into a header that proxies and logs see; if it holds no secret, mark it "${SENSITIVE_OPT_OUT}": false`,
          )
        } else if (node[SENSITIVE_OPT_OUT] !== undefined && typeof node[SENSITIVE_OPT_OUT] !== 'boolean') {
          problems.push(`${SENSITIVE_OPT_OUT} at ${at} must be true or false`)
        } else if (seen.has(lower)) {
          problems.push(`x-mcp-header ${JSON.stringify(value)} duplicates ${JSON.stringify(seen.get(lower))}`)
        } else {
          seen.set(lower, value)
          params.push({ header: value, path: [...path], type: type as HeaderParamType })
        }
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'properties' && isObject(child)) {
        for (const [prop, sub] of Object.entries(child)) {
          visit(sub, [...path, prop], reachable, `${where}/properties/${prop}`)
        }
      } else if (
        key !== 'x-mcp-header' &&
        key !== 'const' &&
        key !== 'enum' &&
        key !== 'default' &&
        key !== 'examples'
      ) {
        visit(child, path, false, `${where}/${key}`)
      }
    }
  }
  visit(inputSchema, [], true, '')
  return { params, problems }
}

/** Reads the value at a `properties` path of the arguments; undefined when absent. */
export function valueAt(args: unknown, path: readonly string[]): unknown {
  let current: unknown = args
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

const SENTINEL = /^=\?base64\?(.*)\?=$/s
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const NEEDS_ENCODING = /[^\x20-\x7e]|^[ \t]|[ \t]$/

/**
 * Encodes a string for a header: plain when safe, `=?base64?…?=` otherwise (streamable-http §Value Encoding).
 */
export function encodeHeaderValue(value: string): string {
  if (NEEDS_ENCODING.test(value) || SENTINEL.test(value)) {
    return `=?base64?${bytesToBase64(new TextEncoder().encode(value))}?=`
  }
  return value
}

/**
 * Whether a number may travel in an `Mcp-Param-*` header: integers there must lie within ±(2^53−1)
 * (basic/transports/streamable-http §Custom Headers from Tool Parameters).
 */
export const inHeaderRange = (value: number): boolean => Math.abs(value) <= Number.MAX_SAFE_INTEGER

/**
 * Encodes a parameter value for `Mcp-Param-*`; undefined means the header is omitted. Numbers are written
 * as plain decimals (`42`, `-7`); callers refuse values outside the safe range first (`inHeaderRange`).
 */
export function encodeParamValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || !inHeaderRange(value)) return undefined
    return Number.isInteger(value) ? value.toFixed(0) : String(value)
  }
  if (typeof value === 'string') return encodeHeaderValue(value)
  return undefined
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** `=?base64?` … `?=`: the sentinel around an encoded value (streamable-http §Value Encoding). */
const SENTINEL_HEAD = '=?base64?'
const SENTINEL_LENGTH = SENTINEL_HEAD.length + 2

/** Whether every character is one a plain header value may hold: tab, or printable ASCII. */
function plainHeaderText(raw: string): boolean {
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index)
    if (code < 0x20 ? code !== 0x09 : code > 0x7e) return false
  }
  return true
}

/**
 * Decodes a received header value; throws with a reason when it is malformed. Tested with string methods
 * rather than the two patterns it once ran: it reads a header on every tools/call (`Mcp-Name`), nearly
 * always a short plain name.
 */
export function decodeHeaderValue(raw: string): string {
  if (!(raw.length >= SENTINEL_LENGTH && raw.startsWith(SENTINEL_HEAD) && raw.endsWith('?='))) {
    if (!plainHeaderText(raw)) throw new Error('contains characters that are not allowed in a header value')
    return raw
  }
  const payload = raw.slice(SENTINEL_HEAD.length, -2)
  if (!BASE64.test(payload)) throw new Error('has an invalid Base64 payload')
  try {
    return utf8.decode(base64ToBytes(payload))
  } catch {
    throw new Error('has a Base64 payload that is not valid UTF-8')
  }
}

/**
 * Whether a decoded header value matches the body value (integers compared numerically, streamable-http
 * §Server Behavior for Custom Headers).
 */
export function headerMatches(decoded: string, bodyValue: unknown): boolean {
  if (typeof bodyValue === 'string') return decoded === bodyValue
  if (typeof bodyValue === 'boolean') return decoded === (bodyValue ? 'true' : 'false')
  if (typeof bodyValue === 'number') {
    if (!inHeaderRange(bodyValue)) return false
    if (!/^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?$/.test(decoded)) return false
    return Number(decoded) === bodyValue
  }
  return false
}
