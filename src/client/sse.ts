/**
 * An incremental `text/event-stream` reader on eventsource-parser: yields each event's data. Comments and
 * `event:` carry nothing the client needs (streamable-http §Receiving Messages: comments are keep-alives);
 * `id:` and `retry:` are kept in the optional cursor, because a 2025-era stream is resumed with them (2025-11-25
 * basic/transports §Resumability and Redelivery). More than `maxEventBytes` (counted in UTF-16 units)
 * received without completing an event throws, so a hostile server cannot exhaust memory.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { readerChunks } from './exchange.js'

export class OversizedError extends Error {
  override readonly name = 'OversizedError'
}

/** The `id:` and `retry:` fields seen so far: what a 2025-era stream needs to be resumed. */
export interface SseCursor {
  lastEventId?: string
  retryMs?: number
}

export function readSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  maxEventBytes = Infinity,
  cursor?: SseCursor,
): AsyncGenerator<string> {
  return readEvents(body, maxEventBytes, cursor, dataOf)
}

/**
 * The same reader yielding whole events, with their `event:` name: the HTTP+SSE transport of 2024-11-05
 * opens with an `endpoint` event (2024-11-05 basic/transports §HTTP with SSE).
 */
export function readSseEvents(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  maxEventBytes = Infinity,
): AsyncGenerator<EventSourceMessage> {
  return readEvents(body, maxEventBytes, undefined, (event) => event)
}

const dataOf = (event: EventSourceMessage): string => event.data

async function* readEvents<T>(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  maxEventBytes: number,
  cursor: SseCursor | undefined,
  select: (event: EventSourceMessage) => T,
): AsyncGenerator<T> {
  const chunks = 'getReader' in body ? readerChunks(body) : body
  const decoder = new TextDecoder()
  const ready: T[] = []
  let pending = 0
  let oversized = false
  const parser = createParser({
    onEvent: (event) => {
      if (event.data.length > maxEventBytes) oversized = true
      if (cursor && event.id !== undefined) cursor.lastEventId = event.id
      ready.push(select(event))
      pending = 0
    },
    onRetry: (retryMs) => {
      if (cursor) cursor.retryMs = retryMs
    },
  })
  const feed = (text: string): void => {
    // Counted before parsing, reset by each complete event: what remains unparsed stays bounded (give or
    // take the tail of one network chunk) even when a server never ends its event.
    pending += text.length
    parser.feed(text)
    if (oversized || pending > maxEventBytes)
      throw new OversizedError(`an event exceeds ${maxEventBytes} bytes`)
  }
  // Leaving the loop early (an answer found, an error) closes the body.
  for await (const value of chunks) {
    feed(decoder.decode(value, { stream: true }))
    yield* ready.splice(0)
  }
  // An event cut off by the end of the stream still counts (the server may close without a blank line).
  feed(`${decoder.decode()}\n\n`)
  yield* ready.splice(0)
}
