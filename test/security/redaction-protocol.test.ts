/**
 * Redaction never changes the protocol: a configured secret that equals a protocol string (`text`,
 * `image/png`, a resource URI, a progress token) is replaced in free text and values only (text content,
 * structured values, log data, error messages), never in keys or protocol fields. Every answer below is
 * also checked against the MCP schema by the test helper.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { defineResource, defineServer, defineTool, toolResult, ToolError } from '../../src/index.js'
import type { SecurityOptions } from '../../src/index.js'
import type { ContentBlock } from '../../src/wire/types.js'
import { PNG_1X1 } from '../fixtures/conformance/media.js'
import { errorOf, meta, resultOf } from '../helpers/http.js'
import { callTool, live, type Live } from '../helpers/live.js'

const TOKEN = 'progress-token-1'
const URI = 'notes://private-doc'
const SECRETS = ['text', 'image/png', URI, TOKEN]

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

const mixed = defineTool({
  name: 'mixed',
  handler: (_args, ctx) => {
    ctx.progress(1, 2, `step for ${TOKEN}`)
    ctx.log.info({ type: 'text', seen: `${URI} as image/png` })
    return toolResult({
      content: [
        { type: 'text', text: 'some text here' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        { type: 'resource_link', uri: URI, name: 'doc', description: `read ${URI}` },
        { type: 'resource', resource: { uri: URI, mimeType: 'text/plain', text: `text of ${URI}` } },
      ],
      structuredContent: { type: 'text', text: 'image/png' },
    })
  },
})
const failing = defineTool({
  name: 'failing',
  handler: () => {
    throw new ToolError(`could not read ${URI}`)
  },
})
const doc = defineResource({ uri: URI, name: 'doc', mimeType: 'text/plain', read: () => `text at ${URI}` })

async function start(security: SecurityOptions): Promise<Live> {
  const server = await live(
    defineServer({
      name: 'redaction',
      version: '1',
      tools: [mixed, failing],
      resources: [doc],
      logger: { error: () => {}, warn: () => {} },
      security: { secretsFromEnv: false, secrets: SECRETS, ...security },
    }),
  )
  running.push(server)
  return server
}

describe.each([
  ['with output sanitising', {}],
  ['with sanitising off (redaction alone)', { output: false as const }],
])('redaction %s', (_, security) => {
  it('keeps types, MIME types, URIs and the progress token; redacts text, values and log data', async () => {
    const mcp = await start(security)
    const answer = await callTool(
      mcp,
      'mixed',
      {},
      { meta: meta({ progressToken: TOKEN, 'io.modelcontextprotocol/logLevel': 'info' }) },
    )
    const result = resultOf(answer)
    expect(result.content as ContentBlock[]).toEqual([
      { type: 'text', text: 'some [redacted] here' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'resource_link', uri: URI, name: 'doc', description: 'read [redacted]' },
      { type: 'resource', resource: { uri: URI, mimeType: 'text/plain', text: '[redacted] of [redacted]' } },
    ])
    // Structured values are the tool's own: redacted whatever their key, keys kept.
    expect(result.structuredContent).toEqual({ type: '[redacted]', text: '[redacted]' })
    const progress = answer.messages.find((m) => m.method === 'notifications/progress')
    expect(progress?.params).toMatchObject({ progressToken: TOKEN, message: 'step for [redacted]' })
    const log = answer.messages.find((m) => m.method === 'notifications/message')
    expect(log?.params).toMatchObject({
      level: 'info',
      data: { type: '[redacted]', seen: '[redacted] as [redacted]' },
    })
  })

  it('redacts error messages and leaves resources/read protocol fields alone', async () => {
    const mcp = await start(security)
    const failed = resultOf(await callTool(mcp, 'failing'))
    expect(failed.content).toEqual([{ type: 'text', text: 'could not read [redacted]' }])
    const read = resultOf(await mcp.call('resources/read', { uri: URI }))
    expect(read.contents).toEqual([{ uri: URI, mimeType: 'text/plain', text: '[redacted] at [redacted]' }])
    const unknown = errorOf(await mcp.call('resources/read', { uri: `${URI}/missing` }))
    expect(JSON.stringify(unknown)).not.toContain(URI)
  })
})
