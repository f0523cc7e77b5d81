/**
 * Both transports check a message's depth on its raw text and then walk only `arguments` (the input guard's
 * short walk): the same message must get the same answer over stdio and over HTTP, at the depth limit, one
 * level past it, and with what the short walk still looks for (`__proto__` keys, numbers JSON.parse turns
 * into Infinity).
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, jsonSchema } from '../../src/index.js'
import { serveStdio } from '../../src/transports/stdio/index.js'
import { meta, postRaw, standardHeaders } from '../helpers/http.js'

const server = defineServer({
  name: 'depth',
  version: '1',
  security: { maxDepth: 8 },
  tools: [
    defineTool({
      name: 'echo',
      inputSchema: jsonSchema<{ value?: unknown }>({ type: 'object' }),
      handler: ({ value }) => JSON.stringify(value ?? null),
    }),
  ],
})

/** A tools/call whose `arguments.value` nests `levels` arrays, written as text (it may hold `1e400`). */
const call = (id: number, value: string): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":"echo","arguments":{"value":${value}}}}`
const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels)

async function overStdio(lines: readonly string[]): Promise<Map<unknown, unknown>> {
  const input = new PassThrough()
  const output = new PassThrough()
  const answers = new Map<unknown, unknown>()
  let rest = ''
  output.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop() ?? ''
    for (const part of parts)
      if (part) answers.set((JSON.parse(part) as { id: unknown }).id, JSON.parse(part))
  })
  const connection = serveStdio(server, { input, output })
  for (const line of lines) input.write(`${line}\n`)
  input.end()
  await connection.closed
  return answers
}

async function overHttp(lines: readonly string[]): Promise<Map<unknown, unknown>> {
  const fetcher = createFetchHandler(server)
  const answers = new Map<unknown, unknown>()
  for (const line of lines) {
    const headers = standardHeaders('tools/call', { name: 'echo' })
    const answer = await postRaw(fetcher, line, headers)
    answers.set((JSON.parse(line) as { id: unknown }).id, answer.response)
  }
  return answers
}

describe('the input guard over stdio and over HTTP', () => {
  it('gives each message the same answer', async () => {
    // params is level 1, arguments 2, value 3: the value may nest 6 arrays under a limit of 8.
    const lines = [
      call(1, nested(6)),
      call(2, nested(7)),
      call(3, nested(2, '1e400')),
      call(4, '{"__proto__":{"polluted":true},"ok":[1,2]}'),
      call(5, nested(3, '"[[[[[[[[[[[[[["')),
    ]
    const [stdio, http] = await Promise.all([overStdio(lines), overHttp(lines)])
    expect(stdio.size).toBe(lines.length)
    for (const id of [1, 2, 3, 4, 5]) expect(stdio.get(id)).toEqual(http.get(id))
    expect(stdio.get(1)).toMatchObject({
      result: { content: [{ text: JSON.stringify(JSON.parse(nested(6))) }] },
    })
    expect(stdio.get(2)).toMatchObject({ error: { code: -32602 } })
    expect(stdio.get(3)).toHaveProperty('result.isError', true)
    expect(stdio.get(4)).toMatchObject({
      result: { content: [{ text: '{"__proto__":{"polluted":true},"ok":[1,2]}' }] },
    })
    expect(stdio.get(5)).toMatchObject({ result: { content: [{ text: '[[["[[[[[[[[[[[[[["]]]' }] } })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
