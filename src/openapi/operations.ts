/**
 * The operations of a document, which of them become tools, and their names. A tool name is 1-128
 * characters of `A-Z a-z 0-9 _ - .`, unique within the server (server/tools §Tool Names): an `operationId`
 * is made to fit, an operation without one is named from its method and path, and two operations that end
 * with one name are an error that names both (the `rename` option settles it).
 */
import { TOOL_NAME } from '../features/tools/compile.js'
import { isNode, type Node } from './document.js'
import type { OpenAPIProblem } from './errors.js'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
export type HttpMethod = (typeof METHODS)[number]

/** An operation of the document, as `include`, `exclude` and `rename` see it. */
export interface OperationInfo {
  /** Lower case: `get`, `post` … */
  readonly method: HttpMethod
  /** As written in the document: `/pets/{petId}`. */
  readonly path: string
  readonly operationId: string | undefined
  readonly tags: readonly string[]
  readonly summary: string | undefined
  readonly description: string | undefined
  readonly deprecated: boolean
}

export interface Operation extends OperationInfo {
  readonly node: Node
  readonly pathItem: Node
  /** `GET /pets/{petId} (getPet)`: how problems name it. */
  readonly label: string
}

/**
 * Selects operations. An operation matches when it matches every field given: one of `tags`, one of the
 * `paths` globs (`*` within a segment, `**` across segments), one of `operationIds`, one of `methods`.
 *
 * @example
 * ```ts
 * const filter: OperationFilter = { tags: ['pets'], paths: ['/pets/**'], methods: ['get'] }
 * ```
 */
export interface OperationFilter {
  readonly tags?: readonly string[]
  readonly paths?: readonly string[]
  readonly operationIds?: readonly string[]
  readonly methods?: readonly string[]
}

/** Renames tools: by operationId or by `"GET /pets/{petId}"`, or a function (undefined keeps the name). */
export type Rename = Readonly<Record<string, string>> | ((operation: OperationInfo) => string | undefined)

const MAX_NAME = 128

export function listOperations(document: Node, pathsKey = 'paths'): Operation[] {
  const paths = document[pathsKey]
  if (!isNode(paths)) return []
  const operations: Operation[] = []
  for (const [path, pathItem] of Object.entries(paths)) {
    // OpenAPI §Paths Object: a key starting `x-` is an extension, not a path.
    if (!isNode(pathItem) || path.startsWith('x-')) continue
    for (const method of METHODS) {
      const node = pathItem[method]
      if (!isNode(node)) continue
      const operationId = typeof node.operationId === 'string' ? node.operationId : undefined
      const label = `${method.toUpperCase()} ${path}${operationId === undefined ? '' : ` (${operationId})`}`
      operations.push({
        method,
        path,
        operationId,
        tags: Array.isArray(node.tags) ? node.tags.filter((tag) => typeof tag === 'string') : [],
        summary: typeof node.summary === 'string' ? node.summary : undefined,
        description: typeof node.description === 'string' ? node.description : undefined,
        deprecated: node.deprecated === true,
        node,
        pathItem,
        label,
      })
    }
  }
  return operations
}

/** `*` matches within a path segment, `**` across segments, `?` one character. */
function globRegExp(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*'
      i++
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

export function matches(operation: OperationInfo, filter: OperationFilter): boolean {
  if (filter.tags && !operation.tags.some((tag) => filter.tags?.includes(tag))) return false
  if (filter.paths && !filter.paths.some((glob) => globRegExp(glob).test(operation.path))) return false
  if (filter.operationIds && !filter.operationIds.includes(operation.operationId ?? '')) return false
  if (filter.methods && !filter.methods.some((method) => method.toLowerCase() === operation.method))
    return false
  return true
}

/** A short, stable hash (FNV-1a) that keeps two long names apart once they are cut to length. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, '0')
}

/**
 * Makes any text a tool name (`GET /pets/{petId}` is named from `get_/pets/petId`: `get_pets_petId`): other characters become `_`, and a long one is cut, with a hash of the whole. */
export function toToolName(text: string): string {
  const clean = text
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '')
  if (clean.length === 0) return `op_${shortHash(text)}`
  if (clean.length <= MAX_NAME) return clean
  return `${clean.slice(0, MAX_NAME - 9)}_${shortHash(text)}`
}

export interface NamedOperation {
  readonly operation: Operation
  readonly name: string
}

/**
 * Names the operations. Problems (the operation is not made a tool) for invalid names a `rename` gives.
 * With `notes` (tolerant mode), an operationId taken before and a name taken before are settled and noted:
 * the later operation is named from its method and path, then given the first free `_2`, `_3` … suffix, so
 * the same document always gives the same names. Without `notes` (strict mode) both are problems.
 */
export function nameOperations(
  operations: readonly Operation[],
  rename: Rename | undefined,
  prefix: string,
  problems: OpenAPIProblem[],
  notes?: OpenAPIProblem[],
): NamedOperation[] {
  const byId = new Map<string, Operation>()
  const duplicates = new Map<Operation, Operation>()
  for (const operation of operations) {
    if (operation.operationId === undefined) continue
    const first = byId.get(operation.operationId)
    if (first) duplicates.set(operation, first)
    else byId.set(operation.operationId, operation)
  }
  const byName = new Map<string, Operation>()
  const named: NamedOperation[] = []
  const routeName = (operation: Operation): string =>
    toToolName(`${prefix}${operation.method}_${operation.path.replace(/[{}]/g, '')}`)
  for (const operation of operations) {
    const route = `${operation.method.toUpperCase()} ${operation.path}`
    const chosen =
      typeof rename === 'function'
        ? rename(operation)
        : (rename?.[operation.operationId ?? ''] ?? rename?.[route])
    const first = duplicates.get(operation)
    let name: string
    if (chosen !== undefined) name = chosen
    else if (first !== undefined) {
      const reason = `operationId ${JSON.stringify(operation.operationId)} is also the operationId of ${first.method.toUpperCase()} ${first.path}; operationIds must be unique`
      if (notes === undefined) {
        problems.push({ operation: operation.label, reason })
        continue
      }
      name = routeName(operation)
      notes.push({ operation: operation.label, reason: `${reason}: named from its method and path` })
    } else
      name =
        operation.operationId === undefined
          ? routeName(operation)
          : toToolName(prefix + operation.operationId)
    if (!TOOL_NAME.test(name)) {
      problems.push({
        operation: operation.label,
        reason: `tool name ${JSON.stringify(name)} is invalid: use 1-128 characters from A-Z a-z 0-9 _ - .`,
      })
      continue
    }
    const other = byName.get(name)
    if (other) {
      const reason = `tool name ${JSON.stringify(name)} is also the name of ${other.label}`
      if (notes === undefined || chosen !== undefined) {
        problems.push({
          operation: operation.label,
          reason: `${reason}; give one another name with the rename option`,
        })
        continue
      }
      name = freeName(name, byName)
      notes.push({ operation: operation.label, reason: `${reason}: named ${JSON.stringify(name)}` })
    }
    byName.set(name, operation)
    named.push({ operation, name })
  }
  return named
}

/** `name_2`, `name_3` …: the first not taken, cut to fit the 128-character limit. */
function freeName(name: string, taken: ReadonlyMap<string, unknown>): string {
  for (let n = 2; ; n++) {
    const suffix = `_${n}`
    const candidate = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`
    if (!taken.has(candidate)) return candidate
  }
}
