/**
 * What an upstream asks during a call (elicitation, sampling, roots) reaches the downstream caller through
 * the proxy, across eras. Upstreams: the official SDK v1 server (2025-era, server-to-client requests; over
 * Streamable HTTP and over stdio) and a toolwire server (2026-07-28, `input_required` rounds). Downstream:
 * toolwire's client on 2026-07-28 (answered in `input_required` rounds) and pinned to 2025-11-25 (answered
 * as requests on its session), the SDK v1 client and the SDK v2 client on its default negotiation.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect, type InputHandlers, type ProtocolError } from '../src/client/index.js'
import { defineTool } from '../src/features/tools/define.js'
import { defineResource } from '../src/features/resources/define.js'
import { definePrompt } from '../src/features/prompts/define.js'
import { defineServer } from '../src/server.js'
import { defineProxy, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { type RunningSdkV1Http, startSdkV1Http } from './fixtures/sdk-v1-server.mjs'
import { ROOT } from './helpers/paths.js'
import { join } from 'node:path'
import { textOf } from './helpers/wait.js'

/** Answers like a user and a model would, and records what was asked. */
function answering(asked: string[]): InputHandlers {
  return {
    elicitation: (params) => {
      asked.push(`elicit:${params.message}`)
      return { action: 'accept', content: { name: 'Ada' } }
    },
    sampling: async (params) => {
      asked.push(`sample:${JSON.stringify(params.messages)}`)
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' }
    },
    roots: () => {
      asked.push('roots')
      return [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }]
    },
  }
}

const ERAS = [
  { era: '2026-07-28', options: {} },
  { era: '2025-11-25', options: { protocolVersion: '2025-11-25' } },
] as const

function downstream(url: string, asked: string[], era: (typeof ERAS)[number]): Client {
  return connect({ url }, { warn: () => {}, handlers: answering(asked), ...era.options })
}

/** A 2026-07-28 upstream whose tool, prompt and resource ask for input (patterns/mrtr). */
function askingUpstream(): ReturnType<typeof defineServer> {
  return defineServer({
    name: 'asking',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'interview',
        description: 'Asks a name, then the model, then the roots',
        handler: async (_args, ctx) => {
          const name = await ctx.input.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          })
          const sampled = await ctx.input.sample({
            messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
            maxTokens: 10,
          })
          const roots = await ctx.input.listRoots()
          const said = sampled.content as { text?: string }
          return `${String(name.content?.name)} / ${String(said.text)} / ${roots.length} roots`
        },
      }),
    ],
    prompts: [
      definePrompt({
        name: 'named',
        handler: async (_args, ctx) => {
          const name = await ctx.input.elicit({
            message: 'Name for the prompt?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          })
          const text = `Hello ${String(name.content?.name)}`
          return { messages: [{ role: 'user', content: { type: 'text', text } }] }
        },
      }),
    ],
    resources: [
      defineResource({
        uri: 'memo://rooted',
        name: 'rooted',
        read: async (ctx) => {
          const roots = await ctx.input.listRoots()
          return [{ uri: 'memo://rooted', text: roots.map((root) => root.uri).join(',') }]
        },
      }),
    ],
  })
}

describe('a 2025-era upstream (SDK v1, Streamable HTTP) that asks during a call', () => {
  let upstream: RunningSdkV1Http
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    upstream = await startSdkV1Http()
    proxy = await defineProxy({ target: { url: upstream.url } })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
    await upstream?.close()
  })

  for (const era of ERAS) {
    it(`relays elicitation, sampling and roots to a ${era.era} caller`, async () => {
      const asked: string[] = []
      const client = downstream(running.url, asked, era)
      try {
        expect(textOf(await client.callTool('ask_name', {}))).toBe('Hello, Ada!')
        expect(textOf(await client.callTool('ask_model', {}))).toBe('The model said Paris')
        expect(textOf(await client.callTool('count_roots', {}))).toBe(
          '2 roots: file:///work/a file:///work/b',
        )
        expect(client.legacy).toBe(era.era !== '2026-07-28')
        expect(asked).toEqual([
          'elicit:What is your name?',
          expect.stringContaining('Capital of France?'),
          'roots',
        ])
      } finally {
        await client.close()
      }
    })
  }

  it('relays an elicitation to the SDK v1 client', async () => {
    const client = new SdkClient(
      { name: 'sdk-v1-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    )
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }))
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)))
    try {
      expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Grace!')
    } finally {
      await client.close()
    }
  })

  it('refuses the question when the caller cannot answer it, and the upstream says so', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const failed = await client.callTool('ask_name', {}).then(
        (result) => textOf(result),
        (error: Error) => error.message,
      )
      expect(failed).toMatch(/elicitation/i)
    } finally {
      await client.close()
    }
  })
})

describe('a 2025-era upstream (SDK v1) over stdio that asks during a call', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    const fixture = join(ROOT, 'test', 'fixtures', 'sdk-v1-server.mjs')
    proxy = await defineProxy({ target: { command: process.execPath, args: [fixture], stderr: 'ignore' } })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  for (const era of ERAS) {
    it(`relays the question of the one call in flight to a ${era.era} caller`, async () => {
      const asked: string[] = []
      const client = downstream(running.url, asked, era)
      try {
        expect(textOf(await client.callTool('ask_name', {}))).toBe('Hello, Ada!')
        expect(asked).toEqual(['elicit:What is your name?'])
      } finally {
        await client.close()
      }
    })
  }

  it('relays a roots/list that names no call to the caller of the only call in flight', async () => {
    const asked: string[] = []
    const client = downstream(running.url, asked, ERAS[0])
    try {
      expect(textOf(await client.callTool('count_roots', {}))).toBe('2 roots: file:///work/a file:///work/b')
      expect(asked).toEqual(['roots'])
    } finally {
      await client.close()
    }
  })
})

describe('a 2026-07-28 upstream (toolwire) that asks in input_required rounds', () => {
  let upstreamHttp: RunningServer
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    upstreamHttp = await serveNode(askingUpstream(), { port: 0 })
    proxy = await defineProxy({ target: { url: upstreamHttp.url } })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
    await upstreamHttp?.close()
  })

  it('relays an elicitation to the SDK v2 client on its default negotiation', async () => {
    const client = new ClientV2(
      { name: 'sdk-v2-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    )
    const asked: unknown[] = []
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params)
      return { action: 'accept', content: { name: 'Barbara' } }
    })
    const transport = new HttpTransportV2(new URL(running.url))
    await client.connect(transport)
    try {
      const prompt = await client.getPrompt({ name: 'named', arguments: {} })
      expect(JSON.stringify(prompt.messages)).toContain('Hello Barbara')
      expect(asked).toEqual([expect.objectContaining({ message: 'Name for the prompt?' })])
    } finally {
      await client.close()
    }
  })

  for (const era of ERAS) {
    it(`names the question and why it failed to a ${era.era} caller that refuses or cannot answer`, async () => {
      const refusing = connect(
        { url: running.url },
        {
          warn: () => {},
          ...era.options,
          handlers: {
            elicitation: () => {
              throw new Error('the user closed the form')
            },
          },
        },
      )
      const unable = connect({ url: running.url }, { warn: () => {}, ...era.options })
      const failure = (client: Client): Promise<ProtocolError> =>
        client.callTool('interview', {}).then(
          () => expect.unreachable('the call should fail'),
          (error: ProtocolError) => error,
        )
      try {
        const refused = await failure(refusing)
        expect(refused.message).toContain('the user closed the form')
        // A 2025-era caller's refusal comes back over its session, named.
        if (era.era !== '2026-07-28') expect(refused.message).toContain('refused elicitation/create')
        expect(refused.message).not.toMatch(/unavailable/i)
        const cannot = await failure(unable)
        expect(cannot.code).toBe(-32021)
        expect(cannot.message).toContain('elicitation')
        expect(cannot.data).toEqual({ requiredCapabilities: { elicitation: {} } })
      } finally {
        await refusing.close()
        await unable.close()
      }
    })
  }

  for (const era of ERAS) {
    it(`relays a tool's three questions, a prompt's and a resource's to a ${era.era} caller`, async () => {
      const asked: string[] = []
      const client = downstream(running.url, asked, era)
      try {
        expect(textOf(await client.callTool('interview', {}))).toBe('Ada / Paris / 2 roots')
        // Each question once: the answers of earlier rounds are replayed to the upstream, not asked again.
        expect(asked).toEqual(['elicit:Your name?', expect.stringContaining('Capital of France?'), 'roots'])
        const prompt = await client.getPrompt('named', {})
        expect(JSON.stringify(prompt.messages)).toContain('Hello Ada')
        const read = await client.readResource('memo://rooted')
        expect(read.contents[0]).toMatchObject({ text: 'file:///work/a,file:///work/b' })
      } finally {
        await client.close()
      }
    })
  }
})
