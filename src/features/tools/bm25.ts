/**
 * A compact BM25 index (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
 * 2009, eq. 3.15 with the non-negative idf of Lucene): a few dozen lines rather than a search package, since
 * tool search needs one field-weighted bag of words, no stemming service and no persistence.
 */

import { unicodePattern } from '../../wire/unicode-pattern.js'

/** The usual defaults: term-frequency saturation and length normalisation. */
const K1 = 1.2
const B = 0.75

/**
 * Lower-case words of a text: split on anything not a letter or digit (so `_`, `-`, `.` and spaces) and at
 * camelCase and letter/digit boundaries, so `getUserById` and `get_user_by_id` give the same words.
 *
 * @example
 * ```ts
 * tokenize('notes.createNote v2') // ['notes', 'create', 'note', 'v', '2']
 * ```
 */
export function tokenize(text: string): string[] {
  const spaced = text
    .replace(LOWER_THEN_UPPER(), '$1 $2')
    .replace(UPPER_THEN_WORD(), '$1 $2')
    .replace(LETTER_DIGIT(), (_m, l1?: string, n1?: string, n2?: string, l2?: string) =>
      l1 !== undefined ? `${l1} ${n1}` : `${n2} ${l2}`,
    )
  return spaced
    .toLowerCase()
    .split(NOT_WORD())
    .filter((word) => word.length > 0)
}

// Made on first use, not as literals: see wire/unicode-pattern.ts (a server without tool search never needs them).
const LOWER_THEN_UPPER = unicodePattern('([\\p{Ll}\\p{N}])(\\p{Lu})', 'gu')
const UPPER_THEN_WORD = unicodePattern('(\\p{Lu})(\\p{Lu}\\p{Ll})', 'gu')
const LETTER_DIGIT = unicodePattern('(\\p{L})(\\p{N})|(\\p{N})(\\p{L})', 'gu')
const NOT_WORD = unicodePattern('[^\\p{L}\\p{N}]+', 'u')

/** One document: its words, each field repeated `weight` times (a name word counts more than a description word). */
export interface Bm25Field {
  readonly text: string
  readonly weight: number
}

interface Posting {
  readonly doc: number
  readonly count: number
}

/** Documents numbered 0..n-1 in the order given; built once, searched many times. */
export class Bm25Index {
  readonly #postings = new Map<string, Posting[]>()
  readonly #lengths: number[] = []
  readonly #averageLength: number

  constructor(documents: readonly (readonly Bm25Field[])[]) {
    let total = 0
    documents.forEach((fields, doc) => {
      const counts = new Map<string, number>()
      let length = 0
      for (const field of fields) {
        for (const word of tokenize(field.text)) {
          counts.set(word, (counts.get(word) ?? 0) + field.weight)
          length += field.weight
        }
      }
      for (const [word, count] of counts) {
        let list = this.#postings.get(word)
        if (!list) this.#postings.set(word, (list = []))
        list.push({ doc, count })
      }
      this.#lengths.push(length)
      total += length
    })
    this.#averageLength = documents.length === 0 ? 0 : total / documents.length
  }

  get size(): number {
    return this.#lengths.length
  }

  /**
   * The `limit` best documents sharing a word with the query and passing `accept`, best first (ties in
   * document order). Work is the postings of the query's words plus a top-`limit` selection, never a sort of
   * every match.
   */
  search(query: string, limit: number, accept?: (doc: number) => boolean): { doc: number; score: number }[] {
    const n = this.#lengths.length
    const scores = new Float64Array(n)
    const touched: number[] = []
    for (const word of new Set(tokenize(query))) {
      const list = this.#postings.get(word)
      if (!list) continue
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5))
      for (const { doc, count } of list) {
        const norm = 1 - B + (B * (this.#lengths[doc] ?? 0)) / (this.#averageLength || 1)
        if (scores[doc] === 0) touched.push(doc)
        scores[doc] = (scores[doc] ?? 0) + (idf * (count * (K1 + 1))) / (count + K1 * norm)
      }
    }
    // Insertion into a sorted array of at most `limit` entries; `touched` may be in any order.
    const best: { doc: number; score: number }[] = []
    const before = (a: { doc: number; score: number }, b: { doc: number; score: number }): boolean =>
      a.score > b.score || (a.score === b.score && a.doc < b.doc)
    for (const doc of touched) {
      const entry = { doc, score: scores[doc] ?? 0 }
      const last = best[best.length - 1]
      if (best.length === limit && last && !before(entry, last)) continue
      if (accept && !accept(doc)) continue
      let at = best.length
      while (at > 0 && before(entry, best[at - 1] as { doc: number; score: number })) at--
      best.splice(at, 0, entry)
      if (best.length > limit) best.pop()
    }
    return best
  }
}
