/**
 * The server's tools, in definition order. The one mutable part of a server definition: tools can be added,
 * removed, enabled and disabled at runtime; each change bumps the version, drops the cached list pages and
 * tells listeners (the change bus publishes `notifications/tools/list_changed` from there).
 */
import { rawJson, type RawJson } from '../../protocol/encode.js'
import { decodeCursor, encodeCursor } from '../../protocol/pagination.js'
import { invalidParams } from '../../wire/errors.js'
import { META_SERVER_INFO } from '../../wire/meta.js'
import type { CacheScope, Implementation, Tool } from '../../wire/types.js'
import type { SchemaCompiler } from '../../schema/json-schema.js'
import { type CompiledTool, compileTool, ToolDefinitionError } from './compile.js'
import type { ToolDefinition } from './define.js'

export interface ListOptions {
  readonly pageSize: number
  readonly ttlMs: number
  readonly cacheScope: CacheScope
  readonly serverInfo: Implementation | undefined
}

export class ToolRegistry {
  readonly #compiler: SchemaCompiler
  readonly #options: ListOptions
  #tools: CompiledTool[] = []
  readonly #byName = new Map<string, CompiledTool>()
  readonly #disabled = new Set<string>()
  #enabled: CompiledTool[] = []
  #pages = new Map<number, RawJson>()
  readonly #listeners = new Set<() => void>()
  #version = 0

  constructor(definitions: readonly ToolDefinition[], compiler: SchemaCompiler, options: ListOptions) {
    if (!(options.pageSize >= 1)) throw new ToolDefinitionError('pageSize must be at least 1')
    this.#compiler = compiler
    this.#options = options
    for (const definition of definitions) this.#insert(definition)
    this.#refresh(false)
  }

  get version(): number {
    return this.#version
  }

  /** An enabled tool by name. */
  get(name: string): CompiledTool | undefined {
    const tool = this.#byName.get(name)
    return tool && !this.#disabled.has(name) ? tool : undefined
  }

  /** The enabled tools' wire definitions, in order. */
  tools(): Tool[] {
    return this.#enabled.map((tool) => tool.wire)
  }

  /** Every scope some enabled tool declares (for `scopes_supported` in the resource metadata). */
  scopes(): Set<string> {
    return new Set(this.#enabled.flatMap((tool) => tool.scopes))
  }

  add(definition: ToolDefinition): void {
    this.#insert(definition)
    this.#refresh(true)
  }

  remove(name: string): boolean {
    const tool = this.#byName.get(name)
    if (!tool) return false
    this.#byName.delete(name)
    this.#disabled.delete(name)
    this.#tools = this.#tools.filter((t) => t !== tool)
    this.#refresh(true)
    return true
  }

  enable(name: string): void {
    if (!this.#byName.has(name)) throw new ToolDefinitionError(`Unknown tool ${name}`)
    if (this.#disabled.delete(name)) this.#refresh(true)
  }

  disable(name: string): void {
    if (!this.#byName.has(name)) throw new ToolDefinitionError(`Unknown tool ${name}`)
    if (!this.#disabled.has(name)) {
      this.#disabled.add(name)
      this.#refresh(true)
    }
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** One page of `tools/list`. Unfiltered pages are serialized once and reused until the set changes. */
  page(cursor: unknown, visible?: (tool: CompiledTool) => boolean): RawJson | Record<string, unknown> {
    const { pageSize } = this.#options
    const offset = decodeCursor(cursor, pageSize)
    if (visible) {
      const tools = this.#enabled.filter(visible)
      if (offset > 0 && offset >= tools.length) throw invalidParams('Invalid cursor')
      return this.#pageObject(tools, offset, 'private')
    }
    const cached = this.#pages.get(offset)
    if (cached) return cached
    if (offset > 0 && offset >= this.#enabled.length) throw invalidParams('Invalid cursor')
    const page = rawJson(JSON.stringify(this.#pageObject(this.#enabled, offset, this.#options.cacheScope)))
    this.#pages.set(offset, page)
    return page
  }

  #pageObject(
    tools: readonly CompiledTool[],
    offset: number,
    cacheScope: CacheScope,
  ): Record<string, unknown> {
    const { pageSize, ttlMs, serverInfo } = this.#options
    const result: Record<string, unknown> = {
      resultType: 'complete',
      tools: tools.slice(offset, offset + pageSize).map((tool) => tool.wire),
      ttlMs,
      cacheScope,
    }
    if (offset + pageSize < tools.length) result.nextCursor = encodeCursor(offset + pageSize)
    if (serverInfo) result._meta = { [META_SERVER_INFO]: serverInfo }
    return result
  }

  #insert(definition: ToolDefinition): void {
    const tool = compileTool(definition, this.#compiler)
    if (this.#byName.has(tool.name)) throw new ToolDefinitionError(`Duplicate tool name ${tool.name}`)
    this.#byName.set(tool.name, tool)
    this.#tools.push(tool)
  }

  #refresh(notify: boolean): void {
    this.#enabled = this.#tools.filter((tool) => !this.#disabled.has(tool.name))
    this.#pages = new Map()
    this.#version++
    if (notify) for (const listener of this.#listeners) listener()
  }
}
