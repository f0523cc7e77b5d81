/**
 * What the client keeps about tools: `tools/list` pages cached by their `ttlMs` (private pages per
 * credential, utilities/caching §Cache Scope Field), tools with broken `x-mcp-header` annotations dropped on
 * HTTP (streamable-http §Client Behavior), the `Mcp-Param-*` headers of a call (streamable-http §Custom
 * Headers from Tool Parameters), and `structuredContent` checked against `outputSchema`.
 */
import { AJV_MODULES } from '../schema/ajv-static.js'
import { SchemaCompiler, type CompiledSchema } from '../schema/json-schema.js'
import {
  encodeParamValue,
  type HeaderParam,
  inHeaderRange,
  scanHeaderParams,
  valueAt,
} from '../schema/x-mcp-header.js'
import { contentAnnotationProblem } from '../wire/annotations.js'
import { toolNameProblem } from '../wire/tool-name.js'
import { visibleJson } from '../wire/visible-text.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { CallToolResult, Tool } from '../wire/types.js'
import { InvalidResponseError, ToolExecutionError } from './errors.js'
import { LRUCache } from 'lru-cache'

export interface KnownTool {
  readonly tool: Tool
  readonly headerParams: readonly HeaderParam[]
  output?: CompiledSchema | Error
}

interface CachedPage {
  readonly tools: Tool[]
  readonly nextCursor: string | undefined
  readonly expires: number
}

export type ToolWarning = (message: string) => void

const pageKey = (owner: string, version: string, cursor: string | undefined): string =>
  JSON.stringify(['tools/list', version, cursor ?? null, owner])

/** Definitions remembered from `searchTools` answers (docs/security.md). */
export const MAX_SEARCHED = 1_000

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})

export class ToolBook {
  /** Pages by owner and cursor; lru-cache drops a page when its ttlMs is over (checked on read, no timer). */
  readonly #pages = new LRUCache<string, CachedPage>({ max: 1_000 })
  readonly #known = new Map<string, KnownTool>()
  /**
   * Definitions a `searchTools` answer returned, known as listed ones are. Bounded, least recently used
   * dropped: a server could return new names on every search, where a list ends with its last page.
   */
  readonly #searched = new LRUCache<string, KnownTool>({ max: MAX_SEARCHED })
  /** Why a listed tool was dropped, by name: a call of it is refused with the reason. */
  readonly #dropped = new Map<string, string>()
  /** Names already warned about for breaking the naming rule (a list read again warns no more). */
  readonly #oddNames = new LRUCache<string, true>({ max: 1_000 })

  /**
   * A cached page that is still fresh, for this credential or shared. A page is keyed by method, cursor
   * (`""` is a cursor like any other, distinct from none), protocol version and the request's credentials.
   */
  page(credential: string, version: string, cursor: string | undefined): CachedPage | undefined {
    return (
      this.#pages.get(pageKey(credential, version, cursor)) ?? this.#pages.get(pageKey('*', version, cursor))
    )
  }

  store(
    credential: string,
    version: string,
    cursor: string | undefined,
    result: Record<string, unknown>,
    tools: Tool[],
  ): CachedPage {
    // Absent or negative ttlMs counts as 0: never fresh (utilities/caching §Time-to-Live (TTL) Field).
    const ttl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : 0
    const nextCursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined
    const page = { tools, nextCursor, expires: Date.now() + ttl }
    if (ttl > 0) {
      const owner = result.cacheScope === 'public' ? '*' : credential
      this.#pages.set(pageKey(owner, version, cursor), page, { ttl })
    }
    return page
  }

  /** Forgets every cached page (a `list_changed` notification, a stale cursor). */
  invalidate(): void {
    this.#pages.clear()
  }

  /**
   * Keeps the tools that are well-formed and, on HTTP, whose `x-mcp-header` annotations obey the rules;
   * warns about every dropped tool with its reason. Remembers the kept ones for later calls.
   */
  accept(raw: unknown, http: boolean, warn: ToolWarning, searched = false): Tool[] {
    const book = searched ? this.#searched : this.#known
    const kept: Tool[] = []
    if (!Array.isArray(raw)) return kept
    for (const candidate of raw) {
      if (!isRecord(candidate) || typeof candidate.name !== 'string' || !isRecord(candidate.inputSchema)) {
        warn(`Ignoring a tool without a name or an inputSchema: ${JSON.stringify(candidate).slice(0, 120)}`)
        continue
      }
      const tool = candidate as unknown as Tool
      const { params, problems } = scanHeaderParams(tool.inputSchema)
      if (http && problems.length > 0) {
        warn(`Ignoring tool ${JSON.stringify(tool.name)}: ${problems.join('; ')}`)
        book.delete(tool.name)
        this.#dropped.set(tool.name, problems.join('; '))
        continue
      }
      this.#checkName(tool.name, warn)
      kept.push(tool)
      this.#dropped.delete(tool.name)
      book.set(tool.name, { tool, headerParams: http ? params : [] })
    }
    return kept
  }

  /**
   * Warns about a name that breaks the tool-name rule (server/tools §Tool Names): such a tool is kept (the
   * rule is the server's to follow), but its name may be built to mislead whoever reads it: a bidi override,
   * a full-width look-alike of another tool's name, a path. The name is quoted with those characters escaped.
   */
  #checkName(name: string, warn: ToolWarning): void {
    const problem = toolNameProblem(name)
    if (problem === undefined || this.#oddNames.has(name)) return
    this.#oddNames.set(name, true)
    warn(
      `Tool ${visibleJson(name.slice(0, 200), 0)} breaks the tool-name rule (server/tools §Tool Names): ${problem}`,
    )
  }

  /** A tool's definition: from the latest list that named it, else from a `searchTools` answer. */
  known(name: string): KnownTool | undefined {
    return this.#known.get(name) ?? this.#searched.get(name)
  }

  /** Why the tool was dropped from the latest list that named it; undefined when it was not. */
  dropped(name: string): string | undefined {
    return this.#dropped.get(name)
  }

  /**
   * Refuses, before anything is sent, a header parameter whose integer lies outside ±(2^53−1): the spec
   * allows no other (basic/transports/streamable-http §Custom Headers from Tool Parameters).
   */
  checkParamValues(name: string, args: unknown): void {
    for (const param of this.known(name)?.headerParams ?? []) {
      const value = valueAt(args, param.path)
      if (typeof value === 'number' && !inHeaderRange(value)) {
        throw new RangeError(
          `tools/call ${name}: argument ${param.path.join('.')} = ${value} is outside the range x-mcp-header integers allow (±(2^53−1))`,
        )
      }
    }
  }

  /** `Mcp-Param-*` headers for a call, from the most recent schema of the tool; absent or null values are omitted. */
  paramHeaders(name: string, args: unknown): Readonly<Record<string, string>> {
    const params = this.known(name)?.headerParams
    if (!params || params.length === 0) return NO_HEADERS // most tools have none: nothing to build per call
    const headers: Record<string, string> = {}
    for (const param of params) {
      const value = encodeParamValue(valueAt(args, param.path))
      if (value !== undefined) headers[`mcp-param-${param.header.toLowerCase()}`] = value
    }
    return headers
  }

  /**
   * Checks `structuredContent` against the tool's `outputSchema`; returns the problems, if any. Each schema
   * gets its own compiler, so `$id`s of different tools never collide, and network `$ref`s are never fetched.
   */
  checkOutput(name: string, structured: unknown): string[] {
    const known = this.known(name)
    const schema = known?.tool.outputSchema
    if (!known || !isRecord(schema)) return []
    if (known.output === undefined) {
      try {
        known.output = new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }).compile(
          schema,
          `Tool ${name} outputSchema`,
        )
      } catch (error) {
        known.output = error as Error
      }
    }
    if (known.output instanceof Error) return [known.output.message]
    const outcome = known.output.validate(structured)
    return outcome.ok ? [] : outcome.issues
  }

  /**
   * Checks a complete tools/call result: a content array, and structured content that fits the outputSchema.
   */
  checkCall(name: string, result: Record<string, unknown>, throwOnToolError: boolean): CallToolResult {
    if (!Array.isArray(result.content)) {
      throw new InvalidResponseError(`tools/call ${name}: the result has no content array`)
    }
    // Annotations steer what a model or user is shown (schema `Annotations`): a role or priority the
    // specification does not define is a broken answer, not something to pass on.
    const annotationProblem = contentAnnotationProblem(result.content)
    if (annotationProblem) throw new InvalidResponseError(`tools/call ${name}: ${annotationProblem}`)
    const call = result as unknown as CallToolResult
    if (call.isError === true) {
      if (throwOnToolError) throw new ToolExecutionError(name, call)
      return call
    }
    if (this.known(name)?.tool.outputSchema !== undefined) {
      if (!('structuredContent' in result)) {
        throw new InvalidResponseError(
          `tools/call ${name}: the tool has an outputSchema but returned no structuredContent`,
        )
      }
      const issues = this.checkOutput(name, call.structuredContent)
      if (issues.length > 0) {
        throw new InvalidResponseError(
          `tools/call ${name}: structuredContent does not match the outputSchema: ${issues.join('; ')}`,
        )
      }
    }
    return call
  }
}
