/**
 * An ordered, keyed set of compiled definitions (prompts, resources, resource templates) behind one list
 * method: pages serialized once and reused until the set changes; runtime add/remove/enable/disable, each
 * change telling listeners (the server publishes the matching list_changed on its change bus).
 */
import { rawJson, type RawJson } from '../protocol/encode.js'
import { type CursorPosition, decodeCursor, encodeCursor, staleCursor } from '../protocol/pagination.js'
import { META_SERVER_INFO } from '../wire/meta.js'
import type { CacheScope, Implementation } from '../wire/types.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

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

/**
 * A catalog was misused: a duplicate key, an unknown key to enable or disable, a bad page size.
 *
 * @example
 * ```ts
 * try {
 *   server.prompts.add(greeting) // already defined
 * } catch (error) {
 *   if (error instanceof CatalogError) console.error(error.errorCode, error.message) // ERR_CATALOG
 * }
 * ```
 */
export class CatalogError extends ToolwireError {
  override readonly name = 'CatalogError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_CATALOG'
  }
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export class Catalog<D, T extends CatalogItem> {
  readonly #listKey: string
  readonly #compile: (definition: D) => T
  readonly #options: ListOptions
  #items: T[] = []
  /**
   * Each item's insertion number. `#items` stays in this order (items are appended, never moved), so a cursor
   * holding a number resumes right after it even when that item is gone; the first definitions are numbered
   * 0, 1, 2 … on every instance, so any instance reads a cursor the same way.
   */
  readonly #serial = new Map<string, number>()
  #nextSerial = 0
  readonly #byKey = new Map<string, T>()
  readonly #disabled = new Set<string>()
  #enabled: T[] = []
  /** Serialized unfiltered pages, by the key they follow ('' for the first page). */
  #pages = new Map<string, RawJson>()
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
    this.#serial.delete(key)
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
   * One page of the list result, starting after the item the cursor names (see protocol/pagination.ts).
   * Unfiltered pages are serialized once and reused until the set changes; a `visible` filter (per caller,
   * e.g. by scope) builds the page fresh and marks it `private`.
   */
  page(cursor: unknown, visible?: (item: T) => boolean): RawJson | Record<string, unknown> {
    const after = decodeCursor(cursor)
    const start = after === undefined ? 0 : this.#resumeAt(after)
    if (visible) return this.#pageObject(start, visible, 'private')
    const cacheKey = after === undefined ? '' : String(after.serial)
    const cached = this.#pages.get(cacheKey)
    if (cached) return cached
    const page = rawJson(JSON.stringify(this.#pageObject(start, undefined, this.#options.cacheScope)))
    this.#pages.set(cacheKey, page)
    return page
  }

  /** The index in `#items` of the first item inserted after the cursor's item. */
  #resumeAt(after: CursorPosition): number {
    // A number this catalog never issued, or one now held by another key: the cursor comes from another
    // list (a restarted or differently configured instance), so the client must start over.
    if (after.serial >= this.#nextSerial) throw staleCursor()
    let low = 0
    let high = this.#items.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.#serialOf(this.#items[middle] as T) <= after.serial) low = middle + 1
      else high = middle
    }
    const previous = this.#items[low - 1]
    if (previous && this.#serialOf(previous) === after.serial && previous.key !== after.key)
      throw staleCursor()
    return low
  }

  #serialOf(item: T): number {
    return this.#serial.get(item.key) ?? -1
  }

  #pageObject(
    start: number,
    visible: ((item: T) => boolean) | undefined,
    cacheScope: CacheScope,
  ): Record<string, unknown> {
    const { pageSize, ttlMs, serverInfo } = this.#options
    const listed = (item: T): boolean => !this.#disabled.has(item.key) && (!visible || visible(item))
    const page: T[] = []
    let more = false
    for (let index = start; index < this.#items.length; index++) {
      const item = this.#items[index] as T
      if (!listed(item)) continue
      if (page.length === pageSize) {
        more = true
        break
      }
      page.push(item)
    }
    const result: Record<string, unknown> = {
      resultType: 'complete',
      [this.#listKey]: page.map((item) => item.wire),
      ttlMs,
      cacheScope,
    }
    const last = page.at(-1)
    if (more && last) result.nextCursor = encodeCursor({ serial: this.#serialOf(last), key: last.key })
    if (serverInfo) result._meta = { [META_SERVER_INFO]: serverInfo }
    return result
  }

  #insert(definition: D): void {
    const item = this.#compile(definition)
    if (this.#byKey.has(item.key)) throw this.#errors.duplicate(item.key)
    this.#byKey.set(item.key, item)
    this.#serial.set(item.key, this.#nextSerial++)
    this.#items.push(item)
  }

  #refresh(notify: boolean): void {
    this.#enabled = this.#items.filter((item) => !this.#disabled.has(item.key))
    this.#pages = new Map()
    this.#version++
    if (notify) for (const listener of this.#listeners) listener()
  }
}
