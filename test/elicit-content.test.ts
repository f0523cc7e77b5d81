/**
 * A client's form answer is checked against the `requestedSchema` the server sent (client/elicitation
 * §Security Considerations), not only for its shape, with the validator the rest of the server uses: over a
 * real socket, for a 2026-07-28 `input_required` round and for a 2025-era session answered by the official
 * SDK v1 client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { defineServer, defineTool, type Server } from '../src/index.js'
import { elicitContentProblems } from '../src/protocol/mrtr/elicit-content.js'
import type { ElicitRequestFormParams } from '../src/wire/types.js'
import { meta, resultOf } from './helpers/http.js'
import { type Live, live, textOf } from './helpers/live.js'

const REQUESTED: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    age: { type: 'integer', minimum: 0 },
    color: { type: 'string', enum: ['red', 'green'] },
  },
  required: ['age'],
}

/** One tool that asks under key `form` and reports what its handler received. */
function formServer(received: unknown[]): Server {
  return defineServer({
    name: 'forms',
    version: '1',
    tools: [
      defineTool({
        name: 'ask',
        handler: async (_args, ctx) => {
          const answer = await ctx.input.elicit(
            { message: 'Age and color?', requestedSchema: REQUESTED },
            'form',
          )
          received.push(answer.content)
          return JSON.stringify(answer.content)
        },
      }),
    ],
  })
}

const BAD_CONTENT: Record<string, Record<string, unknown>> = {
  'a wrong type': { age: 'forty' },
  'a missing required property': { color: 'red' },
  'an enum value out of range': { age: 4, color: 'blue' },
  'a value below its minimum': { age: -1 },
}

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

describe('2026-07-28: an input_required round answered against the requestedSchema', () => {
  const caps = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } })
  const call = (server: Live, extra: Record<string, unknown> = {}) =>
    server.call('tools/call', { name: 'ask', arguments: {}, ...extra }, { meta: caps })

  for (const [label, content] of Object.entries(BAD_CONTENT)) {
    it(`refuses ${label}: the handler never sees it and the question is asked again`, async () => {
      const received: unknown[] = []
      const server = await live(formServer(received))
      running.push(server)
      const first = resultOf(await call(server))
      expect(first.resultType).toBe('input_required')
      const again = resultOf(
        await call(server, {
          inputResponses: { form: { action: 'accept', content } },
          requestState: first.requestState,
        }),
      )
      expect(again.resultType).toBe('input_required')
      expect(Object.keys(again.inputRequests as object)).toEqual(['form'])
      expect(received).toEqual([])
    })
  }

  it('passes a valid answer to the handler', async () => {
    const received: unknown[] = []
    const server = await live(formServer(received))
    running.push(server)
    const first = resultOf(await call(server))
    const done = resultOf(
      await call(server, {
        inputResponses: { form: { action: 'accept', content: { age: 40, color: 'green' } } },
        requestState: first.requestState,
      }),
    )
    expect(done.resultType).toBe('complete')
    expect(textOf(done)).toBe('{"age":40,"color":"green"}')
    expect(received).toEqual([{ age: 40, color: 'green' }])
  })
})

describe('2025-era session: the SDK v1 client answers elicitation/create', () => {
  async function answering(content: Record<string, unknown>) {
    const received: unknown[] = []
    const server = await live(formServer(received))
    running.push(server)
    const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept' as const,
      content: content as Record<string, string | number | boolean>,
    }))
    const transport = new StreamableHTTPClientTransport(new URL(server.url))
    await client.connect(transport)
    try {
      const outcome = await client.callTool({ name: 'ask', arguments: {} }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: error as { code?: number; message: string } }),
      )
      return { outcome, received }
    } finally {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    }
  }

  for (const [label, content] of Object.entries(BAD_CONTENT)) {
    it(`refuses ${label} with -32602 before the handler sees it`, async () => {
      const { outcome, received } = await answering(content)
      expect(received).toEqual([])
      expect('error' in outcome).toBe(true)
      if (!('error' in outcome)) return
      expect(outcome.error.code).toBe(-32602)
      // Wrong types and missing required properties fail the shape check already; the rest the schema check.
      expect(outcome.error.message).toMatch(/malformed result|does not match the requestedSchema/)
    })
  }

  it('passes a valid answer to the handler', async () => {
    const { outcome, received } = await answering({ age: 7 })
    expect(received).toEqual([{ age: 7 }])
    expect('result' in outcome).toBe(true)
  })
})

describe('requested schemas built per call', () => {
  it('keeps judging correctly past the 256 compiled schemas it holds', async () => {
    const ask = (n: number) => ({
      method: 'elicitation/create' as const,
      params: {
        message: 'pick',
        requestedSchema: {
          type: 'object' as const,
          properties: { pick: { type: 'string', enum: [`note-${n}`] } },
          required: ['pick'],
        },
      },
    })
    const verdicts: boolean[] = []
    for (let n = 0; n < 600; n++) {
      const fits = await elicitContentProblems(ask(n), { action: 'accept', content: { pick: `note-${n}` } })
      const misfits = await elicitContentProblems(ask(n), {
        action: 'accept',
        content: { pick: `note-${n + 1}` },
      })
      verdicts.push(fits.length === 0 && misfits.length > 0)
    }
    expect(verdicts.filter(Boolean)).toHaveLength(600)
    // The first schemas were dropped long ago and are compiled again, with the same verdict.
    expect(
      await elicitContentProblems(ask(0), { action: 'accept', content: { pick: 'note-1' } }),
    ).toHaveLength(1)
  })
})
