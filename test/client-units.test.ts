/** Small pieces of the client and CLI: the SSE reader across chunk boundaries, key=value coercion. */
import { describe, expect, it } from 'vitest'
import { readSse } from '../src/client/sse.js'
import { buildArguments, coerceValue } from '../src/cli/client/coerce.js'

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
}

async function collect(chunks: string[]): Promise<string[]> {
  const out: string[] = []
  for await (const data of readSse(streamOf(chunks))) out.push(data)
  return out
}

describe('readSse', () => {
  it('joins events split anywhere, including inside \\r\\n and multi-byte characters', async () => {
    const text = 'event: message\r\ndata: {"a":"é"}\r\n\r\n: keepalive comment\n\ndata: one\ndata: two\n\n'
    const bytes = new TextEncoder().encode(text)
    for (let cut = 1; cut < bytes.length; cut++) {
      const parts = [bytes.slice(0, cut), bytes.slice(cut)]
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          parts.forEach((part) => controller.enqueue(part))
          controller.close()
        },
      })
      const out: string[] = []
      for await (const data of readSse(stream)) out.push(data)
      expect(out).toEqual(['{"a":"é"}', 'one\ntwo'])
    }
  })

  it('ignores comments and delivers a last event without a blank line', async () => {
    expect(await collect([':hi\n\n', 'data:x'])).toEqual(['x'])
  })
})

describe('key=value arguments', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer' },
      x: { type: 'number' },
      flag: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      opts: { type: 'object' },
      name: { type: 'string' },
      maybe: { type: ['integer', 'null'] },
    },
  }

  it('types values by the input schema', () => {
    expect(
      buildArguments(
        [
          'n=3',
          'x=2.5',
          'flag=false',
          'tags=["a","b"]',
          'opts={"k":1}',
          'name=42',
          'maybe=null',
          'extra=v=w',
        ],
        undefined,
        schema,
      ),
    ).toEqual({
      n: 3,
      x: 2.5,
      flag: false,
      tags: ['a', 'b'],
      opts: { k: 1 },
      name: '42',
      maybe: null,
      extra: 'v=w',
    })
  })

  it('merges --json-args, with pairs winning', () => {
    expect(buildArguments(['n=1'], '{"n":9,"name":"z"}', schema)).toEqual({ n: 1, name: 'z' })
  })

  it('explains bad values', () => {
    expect(() => coerceValue('n', '1.5', { type: 'integer' })).toThrow('n=1.5: expected an integer')
    expect(() => coerceValue('flag', 'yes', { type: 'boolean' })).toThrow('expected true or false')
    expect(() => coerceValue('opts', '{', { type: 'object' })).toThrow('expected JSON (object)')
    expect(() => buildArguments(['novalue'], undefined, schema)).toThrow('expected key=value')
    expect(() => buildArguments([], '[1]', schema)).toThrow('--json-args must be a JSON object')
  })
})

describe('limits on what a server may send', () => {
  it('refuses an oversized HTTP response and an oversized SSE event', async () => {
    const { HttpTransport } = await import('../src/client/http.js')
    const big = 'x'.repeat(2048)
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list', params: {} }
    const json = new HttpTransport({
      url: 'http://127.0.0.1/mcp',
      maxResponseBytes: 1024,
      fetch: async () => new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { big } })),
    })
    await expect(json.request(request)).rejects.toThrow('larger than 1024 bytes')
    const sse = new HttpTransport({
      url: 'http://127.0.0.1/mcp',
      maxResponseBytes: 1024,
      fetch: async () =>
        new Response(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { big } })}\n\n`, {
          headers: { 'content-type': 'text/event-stream' },
        }),
    })
    await expect(sse.request(request)).rejects.toThrow('exceeds 1024 bytes')
  })

  it('ends a stdio connection whose server sends an endless line', async () => {
    const { StdioTransport } = await import('../src/client/stdio.js')
    const transport = new StdioTransport({
      command: process.execPath,
      args: ['-e', 'process.stdout.write("x".repeat(5000)); setInterval(() => {}, 1000)'],
      maxLineBytes: 1024,
    })
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list', params: {} }
    await expect(transport.request(request)).rejects.toThrow('longer than 1024 bytes')
    await transport.close()
  })
})

describe('package entry', () => {
  it('exports the client at toolwire/client', async () => {
    const entry = (await import('toolwire/client')) as Record<string, unknown>
    expect(typeof entry.connect).toBe('function')
    expect(typeof entry.ProtocolError).toBe('function')
    // connect is the one way to make a client; Client is exported as a type only
    expect(entry.Client).toBeUndefined()
  })
})
