/** Reading a web stream whole, but never more of it than a limit: request bodies on the server, answers on the client. */

/** The stream's bytes, or undefined (the stream cancelled) once it passes `max` bytes. */
export async function readStreamCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0)
  const reader = body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      return undefined
    }
    parts.push(value)
  }
  if (parts.length === 1) return parts[0]
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.byteLength
  }
  return bytes
}
