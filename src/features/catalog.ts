/**
 * An ordered, keyed set of compiled definitions (prompts, resources, resource templates) behind one list
 * method: pages serialized once and reused until the set changes; runtime add/remove/enable/disable, each
 * change telling listeners (the server publishes the matching list_changed on its change bus).
 */
import { rawJson, type RawJson } from '../protocol/encode.js'
import { decodeCursor, encodeCursor } from '../protocol/pagination.js'
import { invalidParams } from '../wire/errors.js'
import { META_SERVER_INFO } from '../wire/meta.js'
import type { ListOptions } from './tools/registry.js'

export interface CatalogItem {
  /** Unique key: a prompt's name, a resource's URI, a template's URI template. */
  readonly key: string
  /** The definition exactly as the list method publishes it. */
  readonly wire: object
}

export class CatalogError extends Error {
  override readonly name = 'CatalogError'
}

export class Catalog<D, T extends CatalogItem> {
  readonly #listKey: string
  readonly #compile: (definition: D) => T
  readonly #options: ListOptions
  #items: T[] = []
  readonly #byKey = new Map<string, T>()
  readonly #disabled = new Set<string>()
  #enabled: T[] = []
  #pages = new Map<number, RawJson>()
  readonly #listeners = new Set<() => void>()

  /** `listKey` names the array in the list result (`prompts`, `resources`, `resourceTemplates`). */
  constructor(
    listKey: string,
    definitions: readonly D[],
    compile: (definition: D) => T,
    options: ListOptions,
  ) {
    this.#listKey = listKey
    this.#compile = compile
    this.#options = options
    for (const definition of definitions) this.#insert(definition)
    this.#refresh(false)
  }

  get size(): number {
    return this.#enabled.length
  }

  /** An enabled item by key. */
  get(key: string): T | undefined {
    const item = this.#byKey.get(key)
    return item && !this.#disabled.has(key) ? item : undefined
  }

  /** The enabled items, in definition order. */
  enabled(): readonly T[] {
    return this.#enabled
  }

  /** Compiles and adds a definition (a bad one throws here, leaving the set unchanged). */
  add(definition: D): void {
    this.#insert(definition)
    this.#refresh(true)
  }

  remove(key: string): boolean {
    const item = this.#byKey.get(key)
    if (!item) return false
    this.#byKey.delete(key)
    this.#disabled.delete(key)
    this.#items = this.#items.filter((other) => other !== item)
    this.#refresh(true)
    return true
  }

  enable(key: string): void {
    if (!this.#byKey.has(key)) throw new CatalogError(`Unknown ${this.#listKey} entry ${key}`)
    if (this.#disabled.delete(key)) this.#refresh(true)
  }

  disable(key: string): void {
    if (!this.#byKey.has(key)) throw new CatalogError(`Unknown ${this.#listKey} entry ${key}`)
    if (!this.#disabled.has(key)) {
      this.#disabled.add(key)
      this.#refresh(true)
    }
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /** One page of the list result, pre-serialized and cached per offset. */
  page(cursor: unknown): RawJson {
    const { pageSize, ttlMs, cacheScope, serverInfo } = this.#options
    const offset = decodeCursor(cursor, pageSize)
    const cached = this.#pages.get(offset)
    if (cached) return cached
    const items = this.#enabled
    if (offset > 0 && offset >= items.length) throw invalidParams('Invalid cursor')
    const result: Record<string, unknown> = {
      resultType: 'complete',
      [this.#listKey]: items.slice(offset, offset + pageSize).map((item) => item.wire),
      ttlMs,
      cacheScope,
    }
    if (offset + pageSize < items.length) result.nextCursor = encodeCursor(offset + pageSize)
    if (serverInfo) result._meta = { [META_SERVER_INFO]: serverInfo }
    const page = rawJson(JSON.stringify(result))
    this.#pages.set(offset, page)
    return page
  }

  #insert(definition: D): void {
    const item = this.#compile(definition)
    if (this.#byKey.has(item.key)) throw new CatalogError(`Duplicate ${this.#listKey} entry ${item.key}`)
    this.#byKey.set(item.key, item)
    this.#items.push(item)
  }

  #refresh(notify: boolean): void {
    this.#enabled = this.#items.filter((item) => !this.#disabled.has(item.key))
    this.#pages = new Map()
    if (notify) for (const listener of this.#listeners) listener()
  }
}
