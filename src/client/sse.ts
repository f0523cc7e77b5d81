/**
 * An incremental `text/event-stream` reader: yields each event's data; comments and other fields are ignored.
 * An event larger than `maxEventBytes` (counted in UTF-16 units) throws, so a hostile server cannot exhaust
 * memory.
 */

export class OversizedError extends Error {
  override readonly name = 'OversizedError'
}

/** The `id:` and `retry:` fields seen so far: what a 2025-era stream needs to be resumed. */
export interface SseCursor {
  lastEventId?: string
  retryMs?: number
}

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = Infinity,
  cursor?: SseCursor,
): AsyncGenerator<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      if (buffer.length > maxEventBytes) throw new OversizedError(`an event exceeds ${maxEventBytes} bytes`)
      let newline: number
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        if (newline === buffer.length - 1 && buffer.endsWith('\r')) break // maybe half of \r\n
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
        if (line === '') {
          if (data.length > 0) yield data.join('\n')
          data = []
          size = 0
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
          size += line.length
          if (size > maxEventBytes) throw new OversizedError(`an event exceeds ${maxEventBytes} bytes`)
        } else if (cursor && line.startsWith('id:')) {
          cursor.lastEventId = line.slice(line.startsWith('id: ') ? 4 : 3)
        } else if (cursor && /^retry: ?\d+$/.test(line)) {
          cursor.retryMs = Number(line.slice(6))
        }
        // `event:` and `:` comment lines carry nothing the client needs (streamable-http §Receiving Messages:
        // comments are keep-alives); `id:` and `retry:` matter only to resume a 2025-era stream (2025-11-25
        // basic/transports §Resumability and Redelivery).
      }
    }
    const last = buffer.replace(/\r$/, '')
    if (last.startsWith('data:')) data.push(last.slice(last.startsWith('data: ') ? 6 : 5))
    if (data.length > 0) yield data.join('\n')
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
