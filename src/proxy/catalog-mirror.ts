/** Keeps one catalog of a server equal to what an upstream lists, publishing only real changes. */
import type { Catalog, CatalogItem } from '../features/catalog.js'
import { stripControls } from '../security/sanitize.js'

/**
 * Makes `catalog` hold exactly `mirrored`: unchanged items stay where they are (no change is published for
 * them), changed ones are replaced, gone ones removed. An upstream item the downstream refuses (a bad name
 * or schema) is left out with a warning rather than failing the whole server: one broken upstream tool must
 * not hide the others.
 */
export class CatalogMirror<D, T extends CatalogItem> {
  readonly #catalog: Catalog<D, T>
  readonly #report: (what: string, error: unknown) => void
  readonly #signatures = new Map<string, string>()

  constructor(catalog: Catalog<D, T>, report: (what: string, error: unknown) => void) {
    this.#catalog = catalog
    this.#report = report
  }

  /** The keys this mirror has put into the catalog. */
  keys(): string[] {
    return [...this.#signatures.keys()]
  }

  /** `mirrored`: each item's key, its definition, and what it was made from (compared as JSON). */
  replaceAll(mirrored: readonly { key: string; definition: D; source: unknown }[]): void {
    const wanted = new Set(mirrored.map((item) => item.key))
    for (const key of [...this.#signatures.keys()]) {
      if (wanted.has(key)) continue
      this.#catalog.remove(key)
      this.#signatures.delete(key)
    }
    for (const { key, definition, source } of mirrored) {
      const signature = JSON.stringify(source)
      if (this.#signatures.get(key) === signature) continue
      // Only what this mirror put there is replaced: in a gateway another member may own the name.
      if (this.#signatures.delete(key)) this.#catalog.remove(key)
      try {
        this.#catalog.add(definition)
        this.#signatures.set(key, signature)
      } catch (error) {
        this.#report(`left out ${JSON.stringify(stripControls(key))}`, error)
      }
    }
  }
}
