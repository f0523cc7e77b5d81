/** What a request's Accept header allows as an answer: JSON, an SSE stream, or both (RFC 9110 §12.5.1). */

export const ALLOWS_JSON = 1
export const ALLOWS_EVENT_STREAM = 2
/** The last Accept header parsed and what it allows: a client sends the same one on every request. */
let lastAccept: string | undefined
let lastAllows = ALLOWS_JSON | ALLOWS_EVENT_STREAM

/** Which of the two answer types an Accept header allows (bits ALLOWS_JSON, ALLOWS_EVENT_STREAM). */
export function allows(accept: string | undefined): number {
  if (accept === undefined) return ALLOWS_JSON | ALLOWS_EVENT_STREAM
  if (accept === lastAccept) return lastAllows
  const bits =
    (accepts(accept, 'application/json') ? ALLOWS_JSON : 0) |
    (accepts(accept, 'text/event-stream') ? ALLOWS_EVENT_STREAM : 0)
  lastAccept = accept
  lastAllows = bits
  return bits
}

/**
 * Whether an Accept header allows a media type (RFC 9110 §12.5.1): the most specific matching range decides,
 * and `q=0` refuses. No header allows anything.
 */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true
  const [type] = mediaType.split('/')
  let best: { specificity: number; q: number } | undefined
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1
    if (specificity < 0 || (best && best.specificity > specificity)) continue
    const q = params.find((param) => param.startsWith('q='))
    best = { specificity, q: q === undefined ? 1 : Number(q.slice(2)) }
  }
  return best !== undefined && best.q > 0
}
