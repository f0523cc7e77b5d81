/**
 * The tools/call output pipeline over real sockets: the parsed output is what is sent, cleaning works on the
 * structure (never on JSON text), what is sent still matches the published schema, and the size cap counts
 * encoded bytes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool, jsonSchema, toolResult } from '../../src/index.js'
import type { SecurityOptions, ToolDefinition } from '../../src/index.js'
import { isSecretVariable } from '../../src/security/secrets.js'
import { resultOf } from '../helpers/http.js'
import { callTool, live, type Live, memoryLogger, textOf } from '../helpers/live.js'

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function start(
  tools: ToolDefinition[],
  security: SecurityOptions = {},
  extra: { cacheTtlMs?: number } = {},
  logger = memoryLogger(),
): Promise<Live> {
  const server = await live(
    defineServer({
      name: 'pipeline',
      version: '1',
      tools,
      security: { secretsFromEnv: false, ...security },
      logger,
      ...(extra.cacheTtlMs !== undefined && { cache: { ttlMs: extra.cacheTtlMs } }),
    }),
  )
  running.push(server)
  return server
}

describe('secret redaction works on the structure', () => {
  it('never touches numbers, keys or JSON syntax', async () => {
    const numbers = defineTool({
      name: 'numbers',
      handler: () => ({ n: 9123456789, '12345678': 'key stays', text: 'code 12345678 here' }),
    })
    const mcp = await start([numbers], { secrets: ['12345678'] })
    const answer = await callTool(mcp, 'numbers')
    const result = resultOf(answer) // parses: the reply is valid JSON
    expect(result.structuredContent).toEqual({
      n: 9123456789,
      '12345678': 'key stays',
      text: 'code [redacted] here',
    })
  })

  it('keeps tools/list valid with a numeric secret-named variable in the environment', async () => {
    process.env.ACCESS_TOKEN_LIFETIME_MS = '86400000'
    try {
      const mcp = await start(
        [defineTool({ name: 'x', handler: () => 'ok' })],
        { secretsFromEnv: true },
        {
          cacheTtlMs: 86_400_000,
        },
      )
      const answer = await mcp.call('tools/list')
      expect(resultOf(answer).ttlMs).toBe(86_400_000)
    } finally {
      delete process.env.ACCESS_TOKEN_LIFETIME_MS
    }
  })

  it('treats only long, non-numeric values of secret-holding variables as secrets', () => {
    expect(isSecretVariable('ACCESS_TOKEN_LIFETIME_MS', '86400000')).toBe(false)
    expect(isSecretVariable('GITHUB_TOKEN', '12345678901234')).toBe(false)
    expect(isSecretVariable('OAUTH_TOKEN_URL', 'https://auth.example/token')).toBe(false)
    expect(isSecretVariable('API_KEY', 'short')).toBe(false)
    expect(isSecretVariable('DB_PASSWORD', 'true')).toBe(false)
    expect(isSecretVariable('API_KEY', 'sk-live-4f9a8b7c6d5e')).toBe(true)
    expect(isSecretVariable('DB_PASSWORD', 'correcthorsebatterystaple')).toBe(true)
  })

  it('reads names and values in any case', () => {
    expect(isSecretVariable('github_token', 'ghp_4f9a8b7c6d5e4f3a')).toBe(true)
    expect(isSecretVariable('Db_Password', 'correcthorsebatterystaple')).toBe(true)
    expect(isSecretVariable('access_token_lifetime_ms', 'eighty-six-thousand')).toBe(false)
    expect(isSecretVariable('Service_Secret', '   DISABLED   ')).toBe(false)
    expect(isSecretVariable('SERVICE_SECRET', '  Enabled    ')).toBe(false)
  })
})

describe('what is sent matches what is published', () => {
  it('sends the parsed zod output: unknown keys dropped, defaults applied', async () => {
    const strict = defineTool({
      name: 'strict',
      outputSchema: z.object({ sum: z.number() }).strict(),
      handler: () => ({ sum: 1, extra: 'leak' }) as unknown as { sum: number },
    })
    const stripped = defineTool({
      name: 'stripped',
      outputSchema: z.object({ sum: z.number() }),
      handler: () => ({ sum: 1, extra: 'leak' }) as unknown as { sum: number },
    })
    const defaults = defineTool({
      name: 'defaults',
      outputSchema: z.object({ a: z.string().default('filled') }),
      handler: () => ({}) as { a: string },
    })
    const mcp = await start([strict, stripped, defaults])
    const listed = resultOf(await mcp.call('tools/list')).tools as { name: string; outputSchema: unknown }[]
    expect(listed.find((tool) => tool.name === 'stripped')?.outputSchema).toMatchObject({
      additionalProperties: false,
    })
    const sent = resultOf(await callTool(mcp, 'stripped'))
    expect(sent.structuredContent).toEqual({ sum: 1 })
    expect(textOf(sent)).toBe('{"sum":1}')
    expect(resultOf(await callTool(mcp, 'defaults')).structuredContent).toEqual({ a: 'filled' })
    const refused = await callTool(mcp, 'strict')
    expect(refused.text).not.toContain('leak')
  })

  it('refuses output that cleaning would make break its schema, instead of sending it invalid', async () => {
    const logger = memoryLogger()
    const tools = [
      defineTool({
        name: 'emptied',
        outputSchema: jsonSchema<{ label: string }>({
          type: 'object',
          properties: { label: { type: 'string', minLength: 1 } },
          required: ['label'],
        }),
        handler: () => ({ label: '\x1b[2J' }),
      }),
      defineTool({
        name: 'renamed',
        outputSchema: jsonSchema<Record<string, string>>({
          type: 'object',
          properties: { 'bad\u202ekey': { type: 'string' } },
          required: ['bad\u202ekey'],
        }),
        handler: () => ({ 'bad\u202ekey': 'v' }),
      }),
    ]
    const mcp = await start(tools, {}, {}, logger)
    for (const name of ['emptied', 'renamed']) {
      const result = resultOf(await callTool(mcp, name))
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toBeUndefined()
      expect(textOf(result)).toMatch(/no longer matches its outputSchema .*\(ref [\w-]+\)$/)
    }
    expect(logger.lines.some((line) => line.includes('emptied') && line.includes('label'))).toBe(true)
  })
})

describe('every string of a result is cleaned, and the cap counts encoded bytes', () => {
  const ESC = '\x1b]0;pwned\x07\x1b[2J'
  it('cleans the result _meta, block _meta and annotations, keys included', async () => {
    const meta = defineTool({
      name: 'meta',
      handler: () =>
        toolResult({
          content: [
            {
              type: 'text',
              text: 'ok',
              annotations: { audience: [`user${ESC}` as 'user'], priority: 1 },
              _meta: { [`k${ESC}`]: `v${ESC}` },
            },
          ],
          _meta: { note: `m${ESC}\u202e`, nested: [{ deep: ESC }] },
        }),
    })
    const mcp = await start([meta])
    const answer = await callTool(mcp, 'meta')
    expect(answer.text).not.toMatch(/\\u001b|\\u0007|\u202e/)
    const result = resultOf(answer)
    expect(result._meta).toMatchObject({ note: 'm', nested: [{ deep: '' }] })
    const block = (result.content as Record<string, unknown>[])[0]
    expect(block).toEqual({
      type: 'text',
      text: 'ok',
      annotations: { audience: ['user'], priority: 1 },
      _meta: { k: 'v' },
    })
  })

  it('refuses a huge _meta and keeps many small blocks or multi-byte text under the byte cap', async () => {
    const maxBytes = 1024 * 1024
    const tools = [
      defineTool({
        name: 'huge_meta',
        handler: () =>
          toolResult({ content: [{ type: 'text', text: 'small' }], _meta: { blob: 'x'.repeat(5_000_000) } }),
      }),
      defineTool({
        name: 'many_blocks',
        handler: () => Array.from({ length: 200_000 }, () => ({ type: 'text' as const, text: 'ab' })),
      }),
      defineTool({ name: 'cjk', handler: () => '漢'.repeat(1_040_000) }),
    ]
    const mcp = await start(tools)
    const huge = await callTool(mcp, 'huge_meta')
    expect(Buffer.byteLength(huge.text)).toBeLessThan(maxBytes)
    expect(resultOf(huge).isError).toBe(true)
    expect(textOf(resultOf(huge))).toMatch(/over the 1048576-byte limit/)
    for (const name of ['many_blocks', 'cjk']) {
      const answer = await callTool(mcp, name)
      const result = resultOf(answer)
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(maxBytes + 1024) // + serverInfo
      expect(textOf(result)).toMatch(/\[truncated: the result exceeded the 1048576-byte limit\]$/)
    }
  })
})
