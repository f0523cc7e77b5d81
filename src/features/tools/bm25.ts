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
 * ASCII text (nearly every tool name and description) takes one pass over its character codes; text with
 * any other character takes the Unicode regular expressions (`unicodeWords`). Both give the same words for
 * ASCII text (test/tool-search-units.test.ts compares them): the three Unicode-property replacements cost
 * most of an index build, about 5x the single pass.
 *
 * @example
 * ```ts
 * tokenize('notes.createNote v2') // ['notes', 'create', 'note', 'v', '2']
 * ```
 */
export function tokenize(text: string): string[] {
  const words: string[] = []
  const n = text.length
  let start = -1 // first character of the word being read; -1 between words
  let previous = OTHER
  // The letter/digit split is a global regex replacement of two-character matches: a character that ended
  // one such match cannot begin the next, so `v2x` gives `v`, `2x` (kept, so both paths agree).
  let lastPairEnd = -1
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i)
    if (code >= 128) return unicodeWords(text)
    const kind =
      code >= 97 && code <= 122
        ? LOWER
        : code >= 65 && code <= 90
          ? UPPER
          : code >= 48 && code <= 57
            ? DIGIT
            : OTHER
    if (kind === OTHER) {
      if (start >= 0) words.push(text.slice(start, i).toLowerCase())
      start = -1
    } else if (start < 0) {
      start = i
    } else {
      let split = splits(previous, kind, text.charCodeAt(i + 1))
      if (!split && mixed(previous, kind) && i - 1 > lastPairEnd) {
        split = true
        lastPairEnd = i
      }
      if (split) {
        words.push(text.slice(start, i).toLowerCase())
        start = i
      }
    }
    previous = kind
  }
  if (start >= 0) words.push(text.slice(start).toLowerCase())
  return words
}

const OTHER = 0
const LOWER = 1
const UPPER = 2
const DIGIT = 3

/** camelCase boundaries: `aB` and `2B`, and `HTTPServer` before the `S` (an upper-case letter then a word). */
function splits(previous: number, kind: number, next: number): boolean {
  if (kind !== UPPER) return false
  if (previous === LOWER || previous === DIGIT) return true
  return previous === UPPER && next >= 97 && next <= 122
}

/** A letter next to a digit, either way round. */
const mixed = (previous: number, kind: number): boolean => (previous === DIGIT) !== (kind === DIGIT)

/** The same words for any text, by Unicode property (letters and digits of every script). */
export function unicodeWords(text: string): string[] {
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

/** Documents numbered 0..n-1 in the order given; built once, searched many times. */
export class Bm25Index {
  /**
   * Each word's number, and per number the documents holding it (in document order) with the word's
   * weighted count there: parallel arrays of numbers instead of a map and an object per document and word,
   * which cost most of a build once tokenizing was cheap.
   */
  readonly #terms = new Map<string, number>()
  readonly #docs: number[][] = []
  readonly #counts: number[][] = []
  readonly #lengths: number[] = []
  readonly #averageLength: number
  /** `K1 × (1 − B + B × length / average length)` per document: computed at build, not once per posting. */
  readonly #kNorms: Float64Array

  constructor(documents: readonly (readonly Bm25Field[])[]) {
    let total = 0
    const lastDoc: number[] = [] // per term: the last document that added to its postings
    documents.forEach((fields, doc) => {
      let length = 0
      for (const field of fields) {
        for (const word of tokenize(field.text)) {
          let term = this.#terms.get(word)
          if (term === undefined) {
            term = this.#docs.length
            this.#terms.set(word, term)
            this.#docs.push([])
            this.#counts.push([])
            lastDoc.push(-1)
          }
          const counts = this.#counts[term] as number[]
          if (lastDoc[term] === doc)
            counts[counts.length - 1] = (counts[counts.length - 1] ?? 0) + field.weight
          else {
            lastDoc[term] = doc
            ;(this.#docs[term] as number[]).push(doc)
            counts.push(field.weight)
          }
          length += field.weight
        }
      }
      this.#lengths.push(length)
      total += length
    })
    this.#averageLength = documents.length === 0 ? 0 : total / documents.length
    const average = this.#averageLength || 1
    this.#kNorms = Float64Array.from(this.#lengths, (length) => K1 * (1 - B + (B * length) / average))
  }

  get size(): number {
    return this.#lengths.length
  }

  /**
   * The `limit` best documents sharing a word with the query and passing `accept`, best first (ties in
   * document order). Work is the postings of the query's words plus a top-`limit` selection, never a sort of
   * every match; a document that cannot enter the top `limit` costs a comparison, no allocation.
   */
  search(query: string, limit: number, accept?: (doc: number) => boolean): { doc: number; score: number }[] {
    const n = this.#lengths.length
    const scores = new Float64Array(n)
    const touched: number[] = []
    const kNorms = this.#kNorms
    for (const word of new Set(tokenize(query))) {
      const term = this.#terms.get(word)
      if (term === undefined) continue
      const docs = this.#docs[term] as number[]
      const counts = this.#counts[term] as number[]
      const idf = Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5))
      for (let at = 0; at < docs.length; at++) {
        const doc = docs[at] as number
        const count = counts[at] as number
        if (scores[doc] === 0) touched.push(doc)
        scores[doc] = (scores[doc] as number) + (idf * (count * (K1 + 1))) / (count + (kNorms[doc] as number))
      }
    }
    // Insertion into a sorted array of at most `limit` entries; `touched` may be in any order.
    const best: { doc: number; score: number }[] = []
    for (const doc of touched) {
      const score = scores[doc] as number
      const last = best[best.length - 1]
      if (best.length === limit && last && !(score > last.score || (score === last.score && doc < last.doc)))
        continue
      if (accept && !accept(doc)) continue
      let at = best.length
      for (; at > 0; at--) {
        const above = best[at - 1] as { doc: number; score: number }
        if (!(score > above.score || (score === above.score && doc < above.doc))) break
      }
      best.splice(at, 0, { doc, score })
      if (best.length > limit) best.pop()
    }
    return best
  }
}
