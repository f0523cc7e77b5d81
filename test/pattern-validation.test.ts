/**
 * Every `pattern` keeps its own meaning when a server or a client compiles many of them: ajv shares compiled
 * patterns by their string form, and the RE2-backed ones once all read `[object Object]`, so each ran as the
 * first pattern compiled (input validation bypassed, valid calls and outputs refused).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { connect, InvalidResponseError } from '../src/client/index.js'
import { defineServer, defineTool, jsonSchema, type Server } from '../src/index.js'
import { errorOf, resultOf } from './helpers/http.js'
import { callTool, type Live, live, memoryLogger, textOf } from './helpers/live.js'

const TWO_PATTERNS = {
  type: 'object',
  properties: {
    any: { type: 'string', pattern: '^.*$' },
    digits: { type: 'string', pattern: '^[0-9]+$' },
  },
} as const

const pathTool = (name: string, pattern: string, ran: string[]) =>
  defineTool({
    name,
    inputSchema: jsonSchema<{ path?: string; q?: string }>({
      type: 'object',
      properties: { path: { type: 'string', pattern }, q: { type: 'string', pattern } },
    }),
    handler: (args) => {
      ran.push(name)
      return JSON.stringify(args)
    },
  })

/** Tools X, Y, Z with distinct patterns, one that echoes its input with two patterns, two checked outputs. */
function patternServer(ran: string[], logger: ReturnType<typeof memoryLogger>): Server {
  return defineServer({
    name: 'patterns',
    version: '1',
    logger,
    tools: [
      pathTool('x', '^.*$', ran),
      pathTool('y', '^[a-z]+$', ran),
      pathTool('z', '^[0-9]+$', ran),
      defineTool({
        name: 'two',
        inputSchema: jsonSchema<{ any?: string; digits?: string }>(TWO_PATTERNS),
        handler: (args) => {
          ran.push('two')
          return JSON.stringify(args)
        },
      }),
      defineTool({
        name: 'echo_two',
        inputSchema: { type: 'object', properties: { value: {} } },
        outputSchema: TWO_PATTERNS,
        handler: (args) => (args as { value: { any?: string; digits?: string } }).value,
      }),
      defineTool({
        name: 'prefix',
        outputSchema: {
          type: 'object',
          properties: { s: { type: 'string', pattern: '^abc' } },
          required: ['s'],
        },
        handler: () => ({ s: 'abcdef' }),
      }),
    ],
  })
}

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function start(): Promise<{ server: Live; ran: string[]; logged: string[] }> {
  const ran: string[] = []
  const logger = memoryLogger()
  const server = await live(patternServer(ran, logger))
  running.push(server)
  return { server, ran, logged: logger.lines }
}

const isError = async (server: Live, name: string, args: Record<string, unknown>): Promise<boolean> =>
  resultOf(await callTool(server, name, args)).isError === true

describe('a server with many patterns, over HTTP', () => {
  it('checks each pattern of one schema by its own pattern', async () => {
    const { server, ran } = await start()
    const refused = resultOf(await callTool(server, 'two', { digits: 'abc' }))
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain('digits: must match pattern "^[0-9]+$"')
    expect(ran).toEqual([])
    expect(await isError(server, 'two', { any: 'abc', digits: '123' })).toBe(false)
    expect(ran).toEqual(['two'])
  })

  it('keeps a later tool from inheriting an earlier tool’s looser pattern', async () => {
    const { server, ran } = await start()
    expect(await isError(server, 'x', { path: '../../etc/passwd' })).toBe(false)
    const refused = resultOf(await callTool(server, 'y', { path: '../../etc/passwd' }))
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain('path: must match pattern "^[a-z]+$"')
    expect(ran).toEqual(['x'])
  })

  it('keeps a later tool from inheriting an earlier tool’s stricter pattern', async () => {
    const { server, ran } = await start()
    expect(await isError(server, 'y', { path: 'abc' })).toBe(false)
    expect(await isError(server, 'z', { q: '123' })).toBe(false)
    expect(await isError(server, 'z', { q: 'abc' })).toBe(true)
    expect(ran).toEqual(['y', 'z'])
  })

  it('sends a correct output after other patterns were compiled, and refuses a wrong one', async () => {
    const { server, logged } = await start()
    expect(await isError(server, 'z', { q: '123' })).toBe(false)
    expect(resultOf(await callTool(server, 'prefix')).structuredContent).toEqual({ s: 'abcdef' })
    expect(errorOf(await callTool(server, 'echo_two', { value: { digits: 'abc' } })).code).toBe(-32603)
    // The operator hears of the broken output (the client only gets a correlation id).
    expect(logged.filter((line) => line.includes('tool echo_two returned an invalid result'))).toHaveLength(1)
    const fine = resultOf(await callTool(server, 'echo_two', { value: { any: 'x', digits: '42' } }))
    expect(fine.structuredContent).toEqual({ any: 'x', digits: '42' })
  })
})

/** A server that returns whatever structured content it is given, under an outputSchema with two patterns. */
function lyingServer(): Server {
  return defineServer({
    name: 'liar',
    version: '1',
    features: [
      {
        methods: {
          'tools/list': {
            handler: () => ({
              resultType: 'complete',
              tools: [
                { name: 'echo', inputSchema: { type: 'object' }, outputSchema: TWO_PATTERNS },
                {
                  name: 'prefix',
                  inputSchema: { type: 'object' },
                  outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^abc' } } },
                },
              ],
              ttlMs: 0,
              cacheScope: 'public',
            }),
          },
          'tools/call': {
            nameParam: 'name',
            handler: (ctx) => ({
              resultType: 'complete',
              content: [],
              structuredContent: (ctx.params.arguments as { value?: unknown }).value,
            }),
          },
        },
      },
    ],
  })
}

describe("the client's outputSchema check", () => {
  it('checks each pattern of one outputSchema by its own pattern', async () => {
    const server = await live(lyingServer())
    running.push(server)
    const client = connect({ url: server.url })
    await client.listTools()
    const error = await client.callTool('echo', { value: { digits: 'abc' } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResponseError)
    expect((error as Error).message).toContain('digits: must match pattern "^[0-9]+$"')
    const fine = await client.callTool('echo', { value: { any: '../x', digits: '123' } })
    expect(fine.structuredContent).toEqual({ any: '../x', digits: '123' })
    const prefixed = await client.callTool('prefix', { value: { s: 'abcdef' } })
    expect(prefixed.structuredContent).toEqual({ s: 'abcdef' })
    await expect(client.callTool('prefix', { value: { s: 'xabc' } })).rejects.toThrow(/must match pattern/)
    await client.close()
  })
})
