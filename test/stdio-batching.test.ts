/** stdio answers many concurrent requests in few writes, in full, and before `closed` resolves. */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { serveStdio } from 'toolwire/stdio'
import { createBenchServer } from '../bench/server/server.js'
import { assertServerMessage } from './helpers/spec-schema.js'
import { until } from './helpers/wait.js'

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}
const call = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: id, b: 1 }, _meta: META },
  })

function harness() {
  const input = new PassThrough()
  const output = new PassThrough()
  const writes: string[] = []
  output.on('data', (chunk: Buffer) => writes.push(chunk.toString()))
  const connection = serveStdio(createBenchServer(1), { input, output })
  const messages = () =>
    writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent: { sum: number } } })
  return { input, writes, connection, messages }
}

describe('stdio output batching', () => {
  it('answers 50 pipelined requests, every one, in fewer writes, before closed resolves', async () => {
    const { input, writes, connection, messages } = harness()
    input.write(Array.from({ length: 50 }, (_, i) => call(i + 1)).join('\n') + '\n')
    input.end()
    await connection.closed
    const answers = messages()
    expect(answers.map((m) => m.id).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    )
    for (const answer of answers) {
      assertServerMessage(answer, 'tools/call')
      expect(answer.result.structuredContent.sum).toBe(answer.id + 1)
    }
    expect(writes.length).toBeLessThan(50)
  })

  it("writes a lone request's answer without waiting for another", async () => {
    const { input, messages, connection } = harness()
    input.write(call(7) + '\n')
    await until(() => messages().length > 0) // no other request ever comes
    expect(messages().map((m) => m.id)).toEqual([7])
    await connection.close()
  })

  it('answers a parse error among pipelined requests too', async () => {
    const { input, connection, messages } = harness()
    input.write(`${call(1)}\n{not json\n${call(2)}\n`)
    input.end()
    await connection.closed
    const answers = messages() as unknown as { id?: number; error?: { code: number } }[]
    expect(answers).toHaveLength(3)
    expect(answers.find((m) => m.error)?.error?.code).toBe(-32700)
    for (const answer of answers) assertServerMessage(answer)
  })

  it('reads the same lines however the input is cut: whole, byte by byte, or in uneven pieces', async () => {
    // Each chunk of whole valid lines is decoded at once; any other goes byte-wise. The answers must not
    // depend on which: multi-byte text, CRLF, a BOM, blank lines, invalid UTF-8 and a line past the bound.
    const named = (id: string): string => call(1).replace('"id":1', `"id":${JSON.stringify(id)}`)
    const text = [
      call(1),
      named('é✓ ünïcode 🚀'),
      '',
      `\uFEFF${call(2)}`,
      `${call(3)}\r`,
      `  ${named('spaced')}  `,
      call(4).replace('"add"', '"add"'.padEnd(900, ' ')),
      named('ok after the long one'),
    ].join('\n')
    const bytes = Buffer.concat([
      Buffer.from(`${text}\n`),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // `{`, two bytes never valid in UTF-8, `}`
      Buffer.from(`${call(5)}\n`),
      Buffer.from(call(6)), // no final newline: answered at the end of input
    ])
    const answersFor = async (pieces: readonly Buffer[]) => {
      const input = new PassThrough()
      const output = new PassThrough()
      let written = ''
      output.on('data', (chunk: Buffer) => (written += chunk.toString()))
      const connection = serveStdio(createBenchServer(1), { input, output, maxLineBytes: 800 })
      for (const piece of pieces) input.write(piece)
      input.end()
      await connection.closed
      return written.split('\n').filter(Boolean).sort()
    }
    const whole = await answersFor([bytes])
    expect(whole).toHaveLength(10)
    const errors = whole.map((line) => JSON.parse(line) as { error?: { message: string } })
    expect(
      errors
        .filter((m) => m.error)
        .map((m) => m.error?.message)
        .sort(),
    ).toEqual(['Parse error: line exceeds 800 bytes', 'Parse error: line is not valid UTF-8'])
    expect(whole.join('\n')).toContain('"id":"é✓ ünïcode 🚀"')
    const byteByByte = Array.from(bytes, (byte) => Buffer.from([byte]))
    const uneven: Buffer[] = []
    for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7) % 97 || 1)
      uneven.push(bytes.subarray(at, at + size))
    expect(await answersFor(byteByByte)).toEqual(whole)
    expect(await answersFor(uneven)).toEqual(whole)
  })
})
