/**
 * Nesting bombs: a body nested millions deep is refused before it is parsed, on HTTP, on stdio and in the
 * client reading a hostile server's answer, at a cost linear in its size and close to a flat body's.
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connect, TransportError } from '../../src/client/index.js'
import { defineServer, defineTool, jsonSchema } from '../../src/index.js'
import { serveStdio } from '../../src/transports/stdio/index.js'
import { nestedDeeperThan, topLevelId } from '../../src/wire/json-depth.js'
import { meta, standardHeaders } from '../helpers/http.js'
import { assertServerMessage } from '../helpers/spec-schema.js'
import { type Live, live } from '../helpers/live.js'

/** The largest bodies the default 4 MiB limit lets in: 4,000,000 bytes of `[` then `]`, and a flat array. */
const DEPTH = 2_000_000
const envelope = (value: string): string =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":"store","arguments":{"doc":${value}}}}`
const NESTED = envelope(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`)
const FLAT = envelope(`[${'0,'.repeat(DEPTH - 1)}0]`)

const server = defineServer({
  name: 'nesting',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'store',
      inputSchema: jsonSchema<{ doc: unknown }>({ type: 'object' }),
      handler: () => 'stored',
    }),
  ],
  security: { rateLimit: false },
  logger: { error: () => {}, warn: () => {} },
})
let mcp: Live
beforeAll(async () => {
  mcp = await live(server)
})
afterAll(() => mcp.close())

const postBody = async (body: string): Promise<{ status: number; message: Record<string, unknown> }> => {
  const response = await fetch(mcp.url, {
    method: 'POST',
    headers: standardHeaders('tools/call', { name: 'store' }),
    body,
  })
  return { status: response.status, message: (await response.json()) as Record<string, unknown> }
}

describe('nesting depth is checked before parsing', () => {
  it('agrees with the real nesting of any JSON value, strings full of brackets included', () => {
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0
    const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a') })
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        tricky,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(tricky, tie('node'), { maxKeys: 3 }),
      ),
    })).node
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (json, limit) => {
        const text = JSON.stringify(json)
        expect(nestedDeeperThan(text, limit)).toBe(depthOf(json) > limit)
      }),
      { numRuns: 500 },
    )
  })

  it('finds the top-level id wherever it stands, never one nested deeper', () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
    fc.assert(
      fc.property(id, fc.jsonValue(), fc.boolean(), (value, other, first) => {
        const text = first
          ? JSON.stringify({ id: value, x: { id: 'inner' }, other })
          : JSON.stringify({ x: [{ id: 'inner' }], other, id: value })
        expect(topLevelId(text)).toBe(Object.is(value, -0) ? 0 : value)
      }),
      { numRuns: 300 },
    )
    expect(topLevelId('{"params":{"id":1}}')).toBeUndefined()
    expect(topLevelId('{"id":null}')).toBeUndefined()
  })

  it('HTTP: refuses a 4 MB body nested 2,000,000 deep with -32602, and keeps serving', async () => {
    expect(NESTED.length).toBeLessThan(4 * 1024 * 1024)
    const { status, message } = await postBody(NESTED)
    expect(status).toBe(400)
    assertServerMessage(message)
    expect(message.id).toBe(7) // found without parsing the body
    expect(message.error).toEqual({
      code: -32602,
      message: 'Invalid params: params are nested deeper than 64 levels',
    })
    const flat = await postBody(FLAT)
    expect(flat.status).toBe(200)
    expect(flat.message.result).toMatchObject({ content: [{ type: 'text', text: 'stored' }] })
  })

  it('HTTP: answers the id of a nested request wherever it stands, and none only when there is none', async () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`
    const params = `{"_meta":${JSON.stringify(meta())},"name":"store","arguments":{"doc":${deep}}}`
    const idLast = await postBody(`{"jsonrpc":"2.0","method":"tools/call","params":${params},"id":"req-9"}`)
    expect(idLast.status).toBe(400)
    expect(idLast.message).toMatchObject({ id: 'req-9', error: { code: -32602 } })
    const noId = await postBody(`{"jsonrpc":"2.0","method":"tools/call","params":${params}}`)
    expect(noId.status).toBe(400)
    expect(noId.message.error).toMatchObject({ code: -32602 })
    expect('id' in noId.message).toBe(false)
  })

  it('refuses the nested body in one scan that stops at the first bracket past the limit, never parsing it', () => {
    // Counted, not timed: the scan reads each character at most once and stops at bracket 65 + 1, so refusing a
    // deep body costs less than parsing a flat one of the same size, which reads every character.
    const parse = vi.spyOn(JSON, 'parse')
    const reads = vi.spyOn(String.prototype, 'charCodeAt')
    try {
      expect(nestedDeeperThan(NESTED, 65)).toBe(true)
      expect(parse).not.toHaveBeenCalled()
      const pastTheLimit = NESTED.indexOf('['.repeat(DEPTH)) + 66
      expect(reads.mock.calls.length).toBeGreaterThan(0)
      expect(reads.mock.calls.length).toBeLessThanOrEqual(pastTheLimit)
    } finally {
      parse.mockRestore()
      reads.mockRestore()
    }
  })

  it('stdio: refuses the nested line with -32602 and answers the next request', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const connection = serveStdio(server, { input, output })
    const lines: Record<string, unknown>[] = []
    let buffered = ''
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const parts = buffered.split('\n')
      buffered = parts.pop() ?? ''
      for (const line of parts.filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
    })
    input.write(`${NESTED}\n`)
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: meta() } })}\n`,
    )
    await expect.poll(() => lines.length, { timeout: 20_000 }).toBe(2)
    for (const line of lines) assertServerMessage(line)
    expect(lines[0]).toMatchObject({ id: 7, error: { code: -32602 } })
    expect(lines[1]?.id).toBe(8)
    input.end()
    await connection.closed
  })
})

describe('the client refuses a nested answer before parsing it', () => {
  let hostile: HttpServer
  let url: string
  beforeAll(async () => {
    const depth = 5_000_000 // a 10 MB answer
    const answer = `{"jsonrpc":"2.0","id":1,"result":${'['.repeat(depth)}${']'.repeat(depth)}}`
    hostile = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer))
    })
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`
  })
  afterAll(() => new Promise<void>((resolve) => hostile.close(() => resolve())))

  it('fails with a TransportError naming the depth, fast, without parsing it', async () => {
    const client = connect({ url })
    try {
      const failure = await client.discover().then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(TransportError)
      expect((failure as Error).message).toMatch(/nested deeper than 256 levels/)
    } finally {
      await client.close()
    }
  })
})
