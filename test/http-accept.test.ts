/**
 * Content negotiation over a real socket (streamable-http §Sending Messages): a client whose Accept allows
 * only JSON never gets an SSE answer, even when the request asks for progress and logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { errorOf, meta, resultOf } from './helpers/http.js'
import { live, type Live } from './helpers/live.js'

let server: Live
beforeAll(async () => {
  server = await live(createFixtureServer())
})
afterAll(() => server.close())

const chatty = meta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'debug' })
const call = (name: string, accept: string) =>
  server.call('tools/call', { name, arguments: {} }, { meta: chatty, headers: { accept } })

describe('Accept that allows only application/json', () => {
  it.each(['application/json', 'application/json, text/event-stream;q=0', 'application/*'])(
    '%s: progress and logs are dropped, the answer is one JSON body',
    async (accept) => {
      for (const [tool, text] of [
        ['test_tool_with_progress', 'Progress complete'],
        ['test_logging_tool', 'Logging test completed'],
      ] as const) {
        const answer = await call(tool, accept)
        expect(answer.status).toBe(200)
        expect(answer.contentType).toMatch(/^application\/json/)
        expect(answer.messages).toHaveLength(1)
        expect(resultOf(answer).content).toEqual([{ type: 'text', text }])
      }
    },
  )

  it('refuses subscriptions/listen, which is only ever a stream, with 406 and a JSON-RPC error', async () => {
    const answer = await server.call(
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      { headers: { accept: 'application/json' } },
    )
    expect(answer.status).toBe(406)
    expect(answer.contentType).toMatch(/^application\/json/)
    expect(errorOf(answer).message).toMatch(/Accept must allow text\/event-stream/)
  })
})

describe('Accept that allows SSE', () => {
  it.each(['application/json, text/event-stream', '*/*', 'text/*, application/json'])(
    '%s: progress streams before the result',
    async (accept) => {
      const answer = await call('test_tool_with_progress', accept)
      expect(answer.contentType).toMatch(/^text\/event-stream/)
      expect(answer.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(3)
      expect(resultOf(answer).content).toEqual([{ type: 'text', text: 'Progress complete' }])
    },
  )
})
