/**
 * An ordered, keyed set of compiled definitions (prompts, resources, resource templates) behind one list
 * method: pages serialized once and reused until the set changes; runtime add/remove/enable/disable, each
 * change telling listeners (the server publishes the matching list_changed on its change bus).
 */
import { rawJson, type RawJson } from '../protocol/encode.js'
import { decodeCursor, encodeCursor } from '../protocol/pagination.js'
import { invalidParams } from '../wire/errors.js'
import { META_SERVER_INFO } from '../wire/meta.js'
import type { CacheScope, Implementation } from '../wire/types.js'

/** How a list method pages and labels its results. */
export interface ListOptions {
  readonly pageSize: number
  readonly ttlMs: number
  readonly cacheScope: CacheScope
  readonly serverInfo: Implementation | undefined
}

/** How a catalog reports a duplicate on definition and an unknown key on enable/disable. */
export interface CatalogErrors {
  duplicate(key: string): Error
  unknown(key: string): Error
}

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
  readonly #errors: CatalogErrors
  #version = 0

  /** `listKey` names the array in the list result (`tools`, `prompts`, `resources`, `resourceTemplates`). */
  constructor(
    listKey: string,
    definitions: readonly D[],
    compile: (definition: D) => T,
    options: ListOptions,
    errors?: CatalogErrors,
  ) {
    if (!(options.pageSize >= 1)) throw new CatalogError('pageSize must be at least 1')
    this.#listKey = listKey
    this.#compile = compile
    this.#options = options
    this.#errors = errors ?? {
      duplicate: (key) => new CatalogError(`Duplicate ${listKey} entry ${key}`),
      unknown: (key) => new CatalogError(`Unknown ${listKey} entry ${key}`),
    }
    for (const definition of definitions) this.#insert(definition)
    this.#refresh(false)
  }

  /** Bumped by every change; a cheap way to tell whether the list may differ. */
  get version(): number {
    return this.#version
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
    if (!this.#byKey.has(key)) throw this.#errors.unknown(key)
    if (this.#disabled.delete(key)) this.#refresh(true)
  }

  disable(key: string): void {
    if (!this.#byKey.has(key)) throw this.#errors.unknown(key)
    if (!this.#disabled.has(key)) {
      this.#disabled.add(key)
      this.#refresh(true)
    }
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /**
   * One page of the list result. Unfiltered pages are serialized once and reused until the set changes;
   * a `visible` filter (per caller, e.g. by scope) builds the page fresh and marks it `private`.
   */
  page(cursor: unknown, visible?: (item: T) => boolean): RawJson | Record<string, unknown> {
    const offset = decodeCursor(cursor, this.#options.pageSize)
    if (visible) {
      const items = this.#enabled.filter(visible)
      if (offset > 0 && offset >= items.length) throw invalidParams('Invalid cursor')
      return this.#pageObject(items, offset, 'private')
    }
    const cached = this.#pages.get(offset)
    if (cached) return cached
    if (offset > 0 && offset >= this.#enabled.length) throw invalidParams('Invalid cursor')
    const page = rawJson(JSON.stringify(this.#pageObject(this.#enabled, offset, this.#options.cacheScope)))
    this.#pages.set(offset, page)
    return page
  }

  #pageObject(items: readonly T[], offset: number, cacheScope: CacheScope): Record<string, unknown> {
    const { pageSize, ttlMs, serverInfo } = this.#options
    const result: Record<string, unknown> = {
      resultType: 'complete',
      [this.#listKey]: items.slice(offset, offset + pageSize).map((item) => item.wire),
      ttlMs,
      cacheScope,
    }
    if (offset + pageSize < items.length) result.nextCursor = encodeCursor(offset + pageSize)
    if (serverInfo) result._meta = { [META_SERVER_INFO]: serverInfo }
    return result
  }

  #insert(definition: D): void {
    const item = this.#compile(definition)
    if (this.#byKey.has(item.key)) throw this.#errors.duplicate(item.key)
    this.#byKey.set(item.key, item)
    this.#items.push(item)
  }

  #refresh(notify: boolean): void {
    this.#enabled = this.#items.filter((item) => !this.#disabled.has(item.key))
    this.#pages = new Map()
    this.#version++
    if (notify) for (const listener of this.#listeners) listener()
  }
}
