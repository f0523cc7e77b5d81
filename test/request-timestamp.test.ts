/**
 * `ctx.timestamp()`: one reading of the clock per request, so the request limit, the tool limit and the tool
 * timeout agree on when a call came. Later asks, after real time has passed, get the same answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { defineServer, defineTool } from '../src/index.js'
import { resultOf } from './helpers/http.js'
import { callTool, live, type Live } from './helpers/live.js'

let server: Live
beforeAll(async () => {
  server = await live(
    defineServer({
      name: 'clock',
      version: '1',
      tools: [
        defineTool({
          name: 'twice',
          handler: async (_args, ctx) => {
            const first = ctx.timestamp()
            await new Promise((resolve) => setTimeout(resolve, 25))
            return { first, second: ctx.timestamp(), after: Date.now() }
          },
        }),
      ],
    }),
  )
})
afterAll(() => server.close())

it('reads the clock once per request, by the time the request was admitted', async () => {
  const before = Date.now()
  const seen = resultOf(await callTool(server, 'twice')).structuredContent as {
    first: number
    second: number
    after: number
  }
  expect(seen.second).toBe(seen.first)
  expect(seen.first).toBeGreaterThanOrEqual(before)
  // The handler waited 25 ms of real time after its first ask: the clock moved, the timestamp did not.
  expect(seen.after).toBeGreaterThan(seen.first)
  // A second request gets a reading of its own.
  const again = resultOf(await callTool(server, 'twice')).structuredContent as {
    first: number
    second: number
    after: number
  }
  expect(again.first).toBeGreaterThanOrEqual(seen.after)
})
