/**
 * Hostile schemas: a catastrophic `pattern` or a chain of `$ref`s that expands exponentially must not stall
 * the client reading a server's `outputSchema`, nor the server validating a caller's arguments.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, InvalidResponseError } from '../../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, jsonSchema } from '../../src/index.js'
import { untrustedRegExp } from '../../src/schema/regexp.js'
import { hostileProxy, type HostileProxy } from '../helpers/hostile-proxy.js'
import { callTool, live, textOf } from '../helpers/live.js'
import { resultOf } from '../helpers/http.js'

const EVIL = '^(a+)+$'
const SLOW_INPUT = `${'a'.repeat(40)}!`

/** 24 definitions, each using the next one twice: 2^24 subschemas once expanded. */
function refChain(links = 24): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`d${links}`]: { type: 'string' } }
  for (let i = 0; i < links; i++) {
    defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
  }
  return { type: 'object', properties: { v: { $ref: '#/$defs/d0' } }, $defs: defs }
}

const HOSTILE_SCHEMAS: Record<string, Record<string, unknown>> = {
  backtrack: { type: 'object', properties: { v: { type: 'string', pattern: EVIL } } },
  lookahead: { type: 'object', properties: { v: { type: 'string', pattern: '^(?=a)(a+)+$' } } },
  chain: refChain(),
}

describe('the client facing hostile output schemas', () => {
  let proxy: HostileProxy
  beforeAll(async () => {
    const tools = Object.keys(HOSTILE_SCHEMAS).map((name) =>
      defineTool({
        name,
        outputSchema: jsonSchema<{ v: string }>({ type: 'object', properties: { v: { type: 'string' } } }),
        handler: () => ({ v: 'fine' }),
      }),
    )
    const inner = createFetchHandler(
      defineServer({ name: 'schemas', version: '1.0.0', tools, security: { rateLimit: false } }),
    )
    proxy = await hostileProxy(inner, {
      outbound: (message, method) => {
        const result = message.result as Record<string, unknown> | undefined
        if (method === 'tools/list' && result) {
          for (const tool of result.tools as { name: string; outputSchema?: unknown }[])
            tool.outputSchema = HOSTILE_SCHEMAS[tool.name]
        }
        if (method === 'tools/call' && result?.structuredContent) {
          result.structuredContent = { v: SLOW_INPUT }
          result.content = [{ type: 'text', text: JSON.stringify({ v: SLOW_INPUT }) }]
        }
        return message
      },
    })
  })
  afterAll(() => proxy.close())

  it.each([
    ['backtrack', /does not match the outputSchema: v: must match pattern/],
    ['lookahead', /cannot be matched in linear time/],
    ['chain', /expands to more than 20000 subschemas/],
  ])('%s: the call fails promptly with an InvalidResponseError', async (name, reason) => {
    const client = connect({ url: proxy.url })
    try {
      await client.listTools()
      const failure = await client.callTool(name, {}).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(InvalidResponseError)
      expect((failure as Error).message).toMatch(reason)
    } finally {
      await client.close()
    }
  })
})

describe('the server and its own schemas', () => {
  const withInput = (schema: Record<string, unknown>) => () =>
    defineServer({
      name: 's',
      version: '1',
      tools: [defineTool({ name: 't', inputSchema: jsonSchema(schema), handler: () => 'ok' })],
    })

  it('refuses at definition a pattern that only a backtracking engine can run and that nests quantifiers', () => {
    expect(withInput(HOSTILE_SCHEMAS.lookahead as Record<string, unknown>)).toThrow(
      /can backtrack catastrophically/,
    )
    expect(withInput(HOSTILE_SCHEMAS.chain as Record<string, unknown>)).toThrow(/expands to more than/)
    // Lookaround without nested quantifiers stays allowed for the server's own schemas.
    expect(
      withInput({ type: 'object', properties: { v: { type: 'string', pattern: '^(?!x)\\w+$' } } }),
    ).not.toThrow()
  })

  it('checks a caller\'s argument against "^(a+)+$" in linear time over HTTP', async () => {
    const mcp = await live(withInput(HOSTILE_SCHEMAS.backtrack as Record<string, unknown>)())
    try {
      const refused = resultOf(await callTool(mcp, 't', { v: SLOW_INPUT }))
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(/must match pattern/)
      expect(resultOf(await callTool(mcp, 't', { v: 'aaaa' })).isError).toBeUndefined()
    } finally {
      await mcp.close()
    }
  })
})

describe('patterns on the linear-time engine keep their ECMAScript meaning', () => {
  it.each(['^\\s+$', '^\\S+$', '^a.b$', '\\u00e9', '\\u{1F600}', '^[\\s\\d]+$', '^[^\\s]+$', '[\\-.]'])(
    '%s',
    (pattern) => {
      const native = new RegExp(pattern, 'u')
      const linear = untrustedRegExp(pattern)
      const text = fc.string({
        unit: fc.constantFrom('a', 'b', '1', ' ', '\u00a0', '\n', '\r', '\u2028', '\u00e9', '😀', '-', '.'),
        maxLength: 6,
      })
      fc.assert(
        fc.property(text, (value) => linear.test(value) === native.test(value)),
        { numRuns: 300 },
      )
    },
  )
})
