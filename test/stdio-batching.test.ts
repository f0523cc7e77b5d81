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
})
