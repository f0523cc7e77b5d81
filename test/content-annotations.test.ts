/**
 * Content annotations (schema `Annotations`: `audience` only "user"/"assistant", `priority` 0..1,
 * `lastModified` ISO 8601) are checked on what the server sends and on what the client accepts.
 */
import { describe, expect, it } from 'vitest'
import { connect, InvalidResponseError } from '../src/client/index.js'
import { createFetchHandler, definePrompt, defineServer, defineTool, toolResult } from '../src/index.js'
import type { Annotations } from '../src/wire/types.js'
import { errorOf, post, resultOf } from './helpers/http.js'

const URL_ = 'http://127.0.0.1/mcp'

const BAD: [string, Record<string, unknown>, RegExp][] = [
  ['an audience role the spec does not define', { audience: ['robot'] }, /audience must list "user"/],
  ['a priority above 1', { priority: 7 }, /priority must be a number from 0 to 1/],
  ['a negative priority', { priority: -0.5 }, /priority must be a number from 0 to 1/],
  ['a lastModified that is not ISO 8601', { lastModified: 'yesterday' }, /lastModified must be an ISO 8601/],
  ['a lastModified without a time', { lastModified: '2025-01-12' }, /lastModified must be an ISO 8601/],
]

/** A server whose one tool returns a text block with the given annotations. */
const serverWith = (annotations: Record<string, unknown>, security: Record<string, unknown> = {}) =>
  defineServer({
    name: 'annotated',
    version: '1',
    logger: { error: () => {}, warn: () => {} },
    security: { secretsFromEnv: false, ...security },
    tools: [
      defineTool({
        name: 'annotated',
        handler: () =>
          toolResult({
            content: [{ type: 'text', text: 'hello', annotations: annotations as Annotations }],
          }),
      }),
    ],
  })

describe('the server checks the annotations it sends', () => {
  it.each(BAD)('refuses %s (-32603, never sent as valid)', async (_, annotations) => {
    for (const security of [{}, { output: false }]) {
      const answer = await post(createFetchHandler(serverWith(annotations, security)), 'tools/call', {
        name: 'annotated',
        arguments: {},
      })
      const error = errorOf(answer)
      expect(error.code).toBe(-32603)
      expect(error.message).toMatch(/annotated produced an invalid result/)
      expect(answer.text).not.toContain('robot')
    }
  })

  it('refuses { audience: ["robot"], priority: 7 } and sends well-formed annotations', async () => {
    const bad = await post(
      createFetchHandler(serverWith({ audience: ['robot'], priority: 7 })),
      'tools/call',
      {
        name: 'annotated',
        arguments: {},
      },
    )
    expect(errorOf(bad).code).toBe(-32603)
    const good = { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2025-01-12T15:00:58Z' }
    const answer = await post(createFetchHandler(serverWith(good)), 'tools/call', {
      name: 'annotated',
      arguments: {},
    })
    expect(resultOf(answer).content).toEqual([{ type: 'text', text: 'hello', annotations: good }])
  })

  it('checks the annotations as sent: an audience role that only carried escape codes is accepted clean', async () => {
    const answer = await post(
      createFetchHandler(
        serverWith({ audience: ['user\x1b[31m'], lastModified: '2025-01-12T15:00:58Z\u202e' }),
      ),
      'tools/call',
      { name: 'annotated', arguments: {} },
    )
    const [block] = resultOf(answer).content as { annotations: unknown }[]
    expect(block!.annotations).toEqual({ audience: ['user'], lastModified: '2025-01-12T15:00:58Z' })
  })
})

describe('the server checks the annotations of prompt messages', () => {
  it('refuses { audience: ["robot"], priority: 7 } in a prompt message (-32603)', async () => {
    const server = (annotations: Record<string, unknown>) =>
      createFetchHandler(
        defineServer({
          name: 'prompts',
          version: '1',
          logger: { error: () => {}, warn: () => {} },
          prompts: [
            definePrompt({
              name: 'p',
              handler: () => [
                {
                  role: 'user',
                  content: { type: 'text', text: 'hi', annotations: annotations as Annotations },
                },
              ],
            }),
          ],
        }),
      )
    const bad = await post(server({ audience: ['robot'], priority: 7 }), 'prompts/get', { name: 'p' })
    expect(errorOf(bad)).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/prompt p produced an invalid result/),
    })
    const good = await post(server({ audience: ['user'], priority: 1 }), 'prompts/get', { name: 'p' })
    expect(resultOf(good).messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 1 } },
      },
    ])
  })
})

/** A server that answers tools/call and prompts/get by hand, with whatever annotations it is given. */
function rawServer(annotations: Record<string, unknown>) {
  const block = { type: 'text', text: 'hello', annotations }
  return defineServer({
    name: 'raw',
    version: '1',
    features: [
      {
        methods: {
          'tools/list': {
            handler: () => ({
              resultType: 'complete',
              tools: [{ name: 'annotated', inputSchema: { type: 'object' } }],
            }),
          },
          'tools/call': { handler: () => ({ resultType: 'complete', content: [block] }) },
          'prompts/get': {
            handler: () => ({ resultType: 'complete', messages: [{ role: 'user', content: block }] }),
          },
        },
      },
    ],
  })
}

describe('the client checks the annotations it accepts', () => {
  it.each(BAD)('refuses a tool result with %s', async (_, annotations, message) => {
    const client = connect(
      { url: URL_, fetch: createFetchHandler(rawServer(annotations)) },
      { warn: () => {} },
    )
    const error = await client.callTool('annotated').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResponseError)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).toMatch(/content\[0\]\.annotations/)
  })

  it('refuses { audience: ["robot"], priority: 7 } in a tool result and in a prompt', async () => {
    const client = connect(
      { url: URL_, fetch: createFetchHandler(rawServer({ audience: ['robot'], priority: 7 })) },
      { warn: () => {} },
    )
    await expect(client.callTool('annotated')).rejects.toThrow(/audience.*; .*priority/)
    await expect(client.getPrompt('p')).rejects.toThrow(/messages\[0\]\.content\.annotations\.audience/)
  })

  it('accepts well-formed annotations', async () => {
    const good = { audience: ['assistant'], priority: 0, lastModified: '2025-01-12T15:00:58.123+02:00' }
    const client = connect({ url: URL_, fetch: createFetchHandler(rawServer(good)) }, { warn: () => {} })
    expect((await client.callTool('annotated')).content).toEqual([
      { type: 'text', text: 'hello', annotations: good },
    ])
    expect((await client.getPrompt('p')).messages[0]!.content).toMatchObject({ annotations: good })
  })
})
