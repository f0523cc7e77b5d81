/**
 * Answering a JSON-RPC batch of a 2025-03-26 session (basic/transports §Sending Messages to the Server): every
 * element runs as if it had come alone, and the answers are gathered. Without anything streamed the answer is
 * one JSON array of responses; once an element streams (a progress notification, a request to the client),
 * the answer is an SSE stream and every response is one event on it. Only notifications and responses: 202.
 */
import type { HttpResponseSink } from './core.js'
import { JSON_HEADERS } from './exchange.js'

/** The revisions whose transport has batches (2025-06-18 removed them). */
export const BATCHING_VERSIONS: ReadonlySet<string> = new Set(['2025-03-26'])

/** The sink each element of a batch answers into; `finish` writes the batch's one HTTP answer. */
export class BatchSink implements HttpResponseSink {
  readonly #bodies: string[] = []
  #streaming = false

  constructor(private readonly out: HttpResponseSink) {}

  /** An element's response (the elements' own `send`, or an answer made without running one). */
  add(body: string): void {
    if (this.#streaming) this.out.write(`event: message\ndata: ${body}\n\n`)
    else this.#bodies.push(body)
  }

  send(_status: number, _headers: Record<string, string>, body?: string): void {
    // 202 of a notification or a response carries no body, and adds nothing to the batch's answer.
    if (body !== undefined && body !== '') this.add(body)
  }

  startStream(headers: Record<string, string>): void {
    if (this.#streaming) return
    this.#streaming = true
    this.out.startStream(headers)
    for (const body of this.#bodies.splice(0)) this.out.write(`event: message\ndata: ${body}\n\n`)
  }

  write(chunk: string): void {
    this.out.write(chunk)
  }

  /** An element's stream ended: the batch's stream stays open until every element has answered. */
  end(): void {}

  pending(): number {
    return this.out.pending?.() ?? 0
  }

  abort(): void {
    this.out.abort?.()
  }

  finish(): void {
    if (this.#streaming) return this.out.end()
    if (this.#bodies.length === 0) return this.out.send(202, {})
    this.out.send(200, JSON_HEADERS, `[${this.#bodies.join(',')}]`)
  }
}
