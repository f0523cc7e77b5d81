/**
 * The output size cap counts the whole encoded result (`result` of the JSON-RPC response, as sent): the
 * content, `resultType` and the server info the server adds to `_meta`. Checked byte for byte at the boundary.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, jsonSchema, toolResult } from '../../src/index.js'
import type { CallToolResult } from '../../src/wire/types.js'
import { post, resultOf } from '../helpers/http.js'

const MAX = 1000

/** `sized` answers `prefix` and `fill` repeated `n` times, with the result `_meta` it is given. */
const sized = defineTool({
  name: 'sized',
  inputSchema: jsonSchema<{ n: number; fill: string; prefix?: string; meta?: Record<string, unknown> }>({
    type: 'object',
    properties: {
      n: { type: 'integer' },
      fill: { type: 'string' },
      prefix: { type: 'string' },
      meta: { type: 'object' },
    },
    required: ['n', 'fill'],
  }),
  handler: ({ n, fill, prefix = '', meta }) =>
    toolResult({
      content: [{ type: 'text', text: prefix + fill.repeat(n) }],
      ...(meta && { _meta: meta }),
    }),
})

function serverWith(oversized: 'refuse' | 'truncate', serverInfoInResults = true) {
  return createFetchHandler(
    defineServer({
      name: 'cap-test-server',
      title: 'A title with ünïcödé',
      version: '1.0.0',
      tools: [sized],
      serverInfoInResults,
      security: { secretsFromEnv: false, output: { maxBytes: MAX, oversized } },
    }),
  )
}

const encodedBytes = (result: unknown): number => new TextEncoder().encode(JSON.stringify(result)).length

async function call(
  fetcher: ReturnType<typeof serverWith>,
  args: Record<string, unknown>,
): Promise<{ result: CallToolResult; bytes: number; raw: string }> {
  const answer = await post(fetcher, 'tools/call', { name: 'sized', arguments: args })
  const result = resultOf(answer) as unknown as CallToolResult
  // The result's own text in the body, byte for byte (it is the last member of the response object).
  const raw = answer.text.slice(answer.text.indexOf('"result":') + '"result":'.length, -1)
  expect(JSON.parse(raw)).toEqual(result)
  return { result, bytes: new TextEncoder().encode(raw).length, raw }
}

/**
 * The arguments whose encoded result is exactly MAX bytes: `fill` units of `unit` bytes each, after an
 * ASCII prefix that makes up the remainder.
 */
async function argsForExactly(
  fetcher: ReturnType<typeof serverWith>,
  args: Record<string, unknown>,
  unit: number,
): Promise<Record<string, unknown> & { n: number }> {
  const empty = await call(fetcher, { ...args, n: 0 })
  const room = MAX - empty.bytes
  return { ...args, prefix: 'p'.repeat(room % unit), n: Math.floor(room / unit) }
}

describe.each([
  ['without _meta', {}, true],
  ['with the tool’s own _meta', { meta: { 'example.com/trace': 'abc' } }, true],
  ['with an empty _meta', { meta: {} }, true],
  ['without server info in results', {}, false],
])('the cap at the boundary, %s', (_, extra, serverInfo) => {
  it.each([
    ['ASCII', 'x', 1],
    ['two-byte characters', 'é', 2],
  ])('%s: exactly maxBytes passes, one unit more is refused', async (_label, fill, unit) => {
    const fetcher = serverWith('refuse', serverInfo)
    const args = await argsForExactly(fetcher, { fill, ...extra }, unit)
    const exact = await call(fetcher, args)
    expect(exact.bytes).toBe(MAX)
    expect(encodedBytes(exact.result)).toBe(MAX)
    expect(exact.result.isError).toBeUndefined()
    expect(exact.result.resultType).toBe('complete')
    if (serverInfo) expect(exact.raw).toContain('"io.modelcontextprotocol/serverInfo"')
    const over = await call(fetcher, { ...args, n: args.n + 1 })
    expect(over.result.isError).toBe(true)
    expect(JSON.stringify(over.result.content)).toContain(
      `returned ${MAX + unit} bytes, over the ${MAX}-byte limit`,
    )
  })

  it('truncation keeps the whole encoded result within maxBytes', async () => {
    const fetcher = serverWith('truncate', serverInfo)
    const args = await argsForExactly(fetcher, { fill: 'x', ...extra }, 1)
    expect((await call(fetcher, args)).bytes).toBe(MAX)
    for (const more of [1, 2, 50, 5000]) {
      const cut = await call(fetcher, { ...args, n: args.n + more })
      expect(cut.bytes).toBeLessThanOrEqual(MAX)
      expect(JSON.stringify(cut.result.content)).toContain(
        `[truncated: the result exceeded the ${MAX}-byte limit]`,
      )
    }
  })
})
