/**
 * Secret-looking parameters are never mirrored into `Mcp-Param-*` headers, which every proxy and access log
 * sees: the server refuses such a definition, the client drops such a tool, unless the definition says
 * `"x-mcp-header-sensitive": false`.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect, UnknownToolError } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, ToolDefinitionError } from '../src/index.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const serverWithProperty = (name: string, property: Record<string, unknown>) =>
  defineServer({
    name: 't',
    version: '1',
    tools: [
      defineTool({
        name: 'x',
        inputSchema: { type: 'object', properties: { [name]: property } },
        handler: () => '',
      }),
    ],
  })

describe('the server refuses a secret-looking header parameter when the tool is defined', () => {
  it.each([
    ['password', { type: 'string' }, /its name "password"/],
    ['clientSecret', { type: 'string' }, /its name "clientSecret"/],
    ['access_token', { type: 'string' }, /its name "access_token"/],
    ['apiKey', { type: 'string' }, /its name "apiKey"/],
    ['API-KEY', { type: 'string' }, /its name "API-KEY"/],
    ['pin', { type: 'string', format: 'password' }, /format "password"/],
    ['pin', { type: 'string', writeOnly: true }, /writeOnly/],
    ['account', { type: 'string', 'x-mcp-header-sensitive': true }, /"x-mcp-header-sensitive": true/],
  ])('%s %j', (name, property, reason) => {
    const define = () => serverWithProperty(name, { ...property, 'x-mcp-header': 'P' })
    expect(define).toThrow(ToolDefinitionError)
    expect(define).toThrow(reason)
    expect(define).toThrow(/mark it "x-mcp-header-sensitive": false/)
  })

  it('accepts ordinary names that only contain a secret word', () => {
    for (const name of ['max_tokens', 'tokenizer', 'secretary', 'keyword', 'region'])
      expect(() => serverWithProperty(name, { type: 'string', 'x-mcp-header': 'P' })).not.toThrow()
  })

  it('accepts a secret-looking parameter the definition says is not a secret', () => {
    expect(() =>
      serverWithProperty('page_token', {
        type: 'string',
        'x-mcp-header': 'Page',
        'x-mcp-header-sensitive': false,
      }),
    ).not.toThrow()
    // From zod, through the JSON Schema it exports.
    expect(() =>
      defineServer({
        name: 't',
        version: '1',
        tools: [
          defineTool({
            name: 'x',
            inputSchema: z.object({
              pageToken: z.string().meta({ 'x-mcp-header': 'Page', 'x-mcp-header-sensitive': false }),
            }),
            handler: () => '',
          }),
        ],
      }),
    ).not.toThrow()
    expect(() =>
      serverWithProperty('account', { type: 'string', 'x-mcp-header': 'P', 'x-mcp-header-sensitive': 'no' }),
    ).toThrow(/x-mcp-header-sensitive at \/properties\/account must be true or false/)
  })
})

describe('the client never mirrors a secret-looking parameter into a header', () => {
  /** A server that lists what toolwire would refuse to define: a password mirrored into a header. */
  const listing = () =>
    defineServer({
      name: 'leaky',
      version: '1',
      features: [
        {
          methods: {
            'tools/list': {
              handler: () => ({
                resultType: 'complete',
                tools: [
                  {
                    name: 'login',
                    inputSchema: {
                      type: 'object',
                      properties: { password: { type: 'string', 'x-mcp-header': 'Password' } },
                    },
                  },
                  {
                    name: 'page',
                    inputSchema: {
                      type: 'object',
                      properties: {
                        pageToken: {
                          type: 'string',
                          'x-mcp-header': 'Page',
                          'x-mcp-header-sensitive': false,
                        },
                      },
                    },
                  },
                ],
              }),
            },
            'tools/call': {
              handler: () => ({ resultType: 'complete', content: [{ type: 'text', text: 'ok' }] }),
            },
          },
        },
      ],
    })

  it('drops the tool with a warning and refuses to call it; an opted-out parameter is mirrored', async () => {
    const warnings: string[] = []
    const recorder = recordingFetch(createFetchHandler(listing()), { validate: false })
    const client = connect(
      { url: 'http://127.0.0.1/mcp', fetch: recorder.fetch },
      { warn: (message) => warnings.push(message) },
    )
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['page'])
    expect(warnings).toEqual([
      expect.stringMatching(/"login".*secret-looking parameter \(its name "password"\)/),
    ])
    const refused = await client.callTool('login', { password: 'hunter2-hunter2' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(UnknownToolError)
    await client.callTool('page', { pageToken: 'p2' })
    const calls = recorder.requests.filter((request) => request.body.method === 'tools/call')
    expect(calls).toHaveLength(1)
    expect(calls[0]!.headers.get('mcp-param-page')).toBe('p2')
    for (const request of recorder.requests) {
      request.headers.forEach((value) => expect(value).not.toContain('hunter2'))
    }
  })
})
