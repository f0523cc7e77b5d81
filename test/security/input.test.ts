import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool, jsonSchema } from '../../src/index.js'
import { serveStdio } from '../../src/transports/stdio/index.js'
import { errorOf, meta, resultOf, standardHeaders } from '../helpers/http.js'
import { assertServerMessage } from '../helpers/spec-schema.js'
import { callTool, live, type Live, textOf } from '../helpers/live.js'

const received: unknown[] = []
const server = defineServer({
  name: 'input',
  version: '1',
  tools: [
    defineTool({
      name: 'store',
      inputSchema: jsonSchema<{ doc: Record<string, unknown> }>({
        type: 'object',
        properties: { doc: { type: 'object' } },
        required: ['doc'],
      }),
      handler: ({ doc }) => {
        received.push(doc)
        // A spread defines properties: a "__proto__" key is copied as data (Object.assign would call the
        // setter on its target instead, docs/security.md).
        const merged = { ...doc }
        return `keys: ${Object.keys(merged).join(',')}`
      },
    }),
    defineTool({
      name: 'bounded',
      inputSchema: z.object({ name: z.string().max(8), tags: z.array(z.string()).max(2) }),
      handler: ({ name }) => `hi ${name}`,
    }),
  ],
})
let mcp: Live
beforeAll(async () => {
  mcp = await live(server, { maxBodyBytes: 64 * 1024 })
})
afterAll(() => mcp.close())

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

function rawPost(body: string | Uint8Array, method = 'tools/call', name?: string): Promise<Response> {
  const headers = standardHeaders(method, name ? { name } : {})
  return fetch(mcp.url, { method: 'POST', headers, body: body as BodyInit })
}

describe('input hardening over HTTP', () => {
  it('refuses params nested deeper than the limit, and accepts ordinary depth', async () => {
    const deep = await callTool(mcp, 'store', { doc: nested(70) })
    expect(deep.status).toBe(400)
    expect(errorOf(deep)).toMatchObject({
      code: -32602,
      message: 'Invalid params: params are nested deeper than 64 levels',
    })
    expect(resultOf(await callTool(mcp, 'store', { doc: nested(20) })).isError).toBeUndefined()
  })

  it('survives nesting far beyond any stack (20 000 levels) with a clear error', async () => {
    const depth = 20_000
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":"store","arguments":{"doc":${'['.repeat(depth)}${']'.repeat(depth)}}}}`
    const response = await rawPost(body, 'tools/call', 'store')
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602)
  })

  it('takes __proto__ keys as data and lets constructor/prototype keys pollute nothing', async () => {
    const body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":"store","arguments":{"doc":{"__proto__":{"polluted":true}}}}}`
    const response = await rawPost(body, 'tools/call', 'store')
    expect(response.status).toBe(200)
    const message = (await response.json()) as Record<string, unknown>
    assertServerMessage(message, 'tools/call')
    // The key reached the handler as data, on an object without a prototype to swap.
    expect(textOf(message.result as Record<string, unknown>)).toBe('keys: __proto__')
    const doc = received.at(-1) as Record<string, unknown>
    expect(Object.getPrototypeOf(doc)).toBeNull()
    expect(Object.keys(doc)).toEqual(['__proto__'])
    expect(doc.__proto__).toEqual({ polluted: true })
    const sneaky = resultOf(
      await callTool(mcp, 'store', {
        doc: { constructor: { prototype: { polluted: true } }, prototype: { polluted: true } },
      }),
    )
    expect(textOf(sneaky)).toBe('keys: constructor,prototype')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it('enforces string and array bounds the schema declares', async () => {
    const long = resultOf(await callTool(mcp, 'bounded', { name: 'a-much-too-long-name', tags: [] }))
    expect(long.isError).toBe(true)
    expect(textOf(long)).toMatch(/Invalid arguments for tool bounded/)
    const many = resultOf(await callTool(mcp, 'bounded', { name: 'ok', tags: ['a', 'b', 'c'] }))
    expect(many.isError).toBe(true)
    expect(textOf(resultOf(await callTool(mcp, 'bounded', { name: 'ok', tags: ['a'] })))).toBe('hi ok')
  })

  it('refuses invalid UTF-8 and oversized bodies', async () => {
    const valid = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta() } }),
    )
    const broken = Buffer.concat([valid.subarray(0, 20), Buffer.from([0xc3, 0x28, 0xff]), valid.subarray(20)])
    const response = await rawPost(broken, 'tools/list')
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32700,
      message: 'Parse error: body is not valid UTF-8',
    })
    const huge = await rawPost(JSON.stringify({ pad: 'x'.repeat(70_000) }), 'tools/list')
    expect(huge.status).toBe(413)
  })
})

describe('input hardening over stdio', () => {
  it('answers invalid UTF-8 and deep nesting with errors and keeps serving', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const connection = serveStdio(server, { input, output })
    const lines: Record<string, unknown>[] = []
    output.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>)
    })
    input.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"'),
        Buffer.from([0xfe, 0x0a]),
      ]),
    )
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: meta(), name: 'store', arguments: { doc: nested(100) } } })}\n`,
    )
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta() } })}\n`,
    )
    await expect.poll(() => lines.length).toBe(3)
    for (const line of lines) assertServerMessage(line)
    expect(lines[0]).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: line is not valid UTF-8' },
    })
    expect(lines.find((line) => line.id === 2)?.error).toMatchObject({ code: -32602 })
    expect(lines.find((line) => line.id === 3)?.result).toBeDefined()
    input.end()
    await connection.closed
  })
})

describe('input and output guards without a request rate limit (the guard without an async hop)', () => {
  it('refuses deep nesting, takes __proto__ as data and still sanitises results', async () => {
    const lean = await live(
      defineServer({
        name: 'lean',
        version: '1',
        tools: [
          defineTool({
            name: 'echo',
            inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
            handler: (args) => JSON.stringify(args),
          }),
          defineTool({ name: 'loud', handler: () => 'red \x1b[31mtext\x1b[0m\u202e!' }),
        ],
        security: { rateLimit: false, maxConcurrentCalls: false },
      }),
    )
    try {
      const deep = await callTool(lean, 'echo', { doc: nested(70) })
      expect(deep.status).toBe(400)
      expect(errorOf(deep).message).toBe('Invalid params: params are nested deeper than 64 levels')
      const headers = standardHeaders('tools/call', { name: 'echo' })
      const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":"echo","arguments":{"x":[{"__proto__":{}}]}}}`
      const proto = await fetch(lean.url, { method: 'POST', headers, body })
      expect(proto.status).toBe(200)
      const message = (await proto.json()) as Record<string, unknown>
      assertServerMessage(message, 'tools/call')
      expect(textOf(message.result as Record<string, unknown>)).toBe('{"x":[{"__proto__":{}}]}')
      expect(textOf(resultOf(await callTool(lean, 'echo', { doc: nested(20) })))).toContain('leaf')
      expect(textOf(resultOf(await callTool(lean, 'loud')))).toBe('red text!')
    } finally {
      await lean.close()
    }
  })
})
