/**
 * An incremental `text/event-stream` reader: yields each event's data; comments and other fields are ignored.
 * An event larger than `maxEventBytes` (counted in UTF-16 units) throws, so a hostile server cannot exhaust
 * memory.
 */

export class OversizedError extends Error {
  override readonly name = 'OversizedError'
}

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = Infinity,
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
        }
        // `event:`, `id:`, `retry:` and `:` comment lines carry nothing the client needs (streamable-http
        // §Receiving Messages: comments are keep-alives).
      }
    }
    const last = buffer.replace(/\r$/, '')
    if (last.startsWith('data:')) data.push(last.slice(last.startsWith('data: ') ? 6 : 5))
    if (data.length > 0) yield data.join('\n')
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
