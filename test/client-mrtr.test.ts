/** toolwire's client against toolwire's server: input_required round trips over HTTP (in process) and stdio. */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type Client, connect } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { createFetchHandler } from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { ROOT } from './helpers/paths.js'

const asked: string[] = []
const handlers = {
  elicitation: (params: { message: string; requestedSchema?: { properties?: Record<string, unknown> } }) => {
    asked.push(params.message)
    const field = Object.keys(params.requestedSchema?.properties ?? {})[0] ?? 'name'
    const value = field === 'ok' ? true : field === 'color' ? 'blue' : 'Ada'
    return { action: 'accept' as const, content: { [field]: value } }
  },
  sampling: async () => ({
    role: 'assistant' as const,
    content: { type: 'text', text: 'Paris' },
    model: 'test',
  }),
  roots: [{ uri: 'file:///workspace', name: 'workspace' }],
}

const secret = { TOOLWIRE_STATE_SECRET: 'client-mrtr-test-secret' }
const clients: Client[] = []
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
})

const http = (): Client =>
  connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(createFixtureServer()) }, { handlers })
const stdio = (): Client => {
  const client = connectStdio(
    {
      command: process.execPath,
      args: ['--import=tsx', join(ROOT, 'test', 'fixtures', 'conformance', 'main.ts'), '--stdio'],
      env: secret,
    },
    { handlers },
  )
  clients.push(client)
  return client
}

const text = (result: { content: { type: string; text?: string }[] }): string =>
  result.content.map((block) => block.text ?? '').join('')

describe.each([
  ['HTTP', http],
  ['stdio', stdio],
])('client input_required loop over %s', (_transport, make) => {
  const client = make()

  it('answers an elicitation and completes', async () => {
    const result = await client.callTool('test_input_required_result_elicitation', {})
    expect(text(result)).toBe('Hello, Ada!')
  })

  it('answers elicitation, sampling and roots asked at once, with state', async () => {
    const result = await client.callTool('test_input_required_result_multiple_inputs', {})
    expect(result.isError).not.toBe(true)
    expect(text(result).length).toBeGreaterThan(0)
  })

  it('goes through several rounds', async () => {
    asked.length = 0
    const result = await client.callTool('test_input_required_result_multi_round', {})
    expect(result.isError).not.toBe(true)
    expect(asked.length).toBe(2)
  })

  it('runs the loop for prompts/get too', async () => {
    const result = await client.request('prompts/get', {
      name: 'test_input_required_result_prompt',
      arguments: {},
    })
    expect(result.resultType).toBe('complete')
    expect(Array.isArray(result.messages)).toBe(true)
  })
})
