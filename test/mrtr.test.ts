import { describe, expect, it, vi } from 'vitest'
import {
  createFetchHandler,
  definePrompt,
  defineServer,
  defineTool,
  type InputRequest,
  type RequestContext,
  type ServerLogger,
} from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { errorOf, meta, post, resultOf, type Fetcher } from './helpers/http.js'
import { until } from './helpers/wait.js'

const ALL_CAPS = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }
const caps = (clientCapabilities: Record<string, unknown>) =>
  meta({ 'io.modelcontextprotocol/clientCapabilities': clientCapabilities })
const fixture = createFetchHandler(createFixtureServer())
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })

async function call(
  fetcher: Fetcher,
  name: string,
  extra: Record<string, unknown> = {},
  clientCaps: Record<string, unknown> = ALL_CAPS,
) {
  return post(fetcher, 'tools/call', { name, arguments: {}, ...extra }, { meta: caps(clientCaps) })
}

/** Asks one yes/no question under key `q` and answers with the user's action. */
const askOk = async (_args: unknown, ctx: RequestContext): Promise<string> =>
  (await ctx.input.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }, 'q'))
    .action

describe('multi-round-trip tools/call', () => {
  it('asks by elicitation, then completes on the retry', async () => {
    const first = resultOf(await call(fixture, 'test_input_required_result_elicitation'))
    expect(first.resultType).toBe('input_required')
    expect(first.inputRequests).toEqual({
      user_name: {
        method: 'elicitation/create',
        params: {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    })
    expect(typeof first.requestState).toBe('string')
    const second = resultOf(
      await call(fixture, 'test_input_required_result_elicitation', {
        inputResponses: { user_name: accept({ name: 'Alice' }) },
        requestState: first.requestState,
      }),
    )
    expect(second.resultType).toBe('complete')
    expect(second.content).toEqual([{ type: 'text', text: 'Hello, Alice!' }])
  })

  it('carries earlier answers across rounds; the state changes each round', async () => {
    const name = 'test_input_required_result_multi_round'
    const r1 = resultOf(await call(fixture, name))
    expect(Object.keys(r1.inputRequests as object)).toEqual(['step1'])
    const r2 = resultOf(
      await call(fixture, name, {
        inputResponses: { step1: accept({ name: 'Ada' }) },
        requestState: r1.requestState,
      }),
    )
    expect(Object.keys(r2.inputRequests as object)).toEqual(['step2'])
    expect(r2.requestState).not.toBe(r1.requestState)
    // The retry carries only the newest answer; step1's answer travels inside requestState.
    const r3 = resultOf(
      await call(fixture, name, {
        inputResponses: { step2: accept({ color: 'teal' }) },
        requestState: r2.requestState,
      }),
    )
    expect(r3.content).toEqual([{ type: 'text', text: 'Ada likes teal' }])
  })

  it('asks for several kinds at once and completes only when all are answered', async () => {
    const name = 'test_input_required_result_multiple_inputs'
    const r1 = resultOf(await call(fixture, name))
    const methods = Object.values(r1.inputRequests as Record<string, { method: string }>).map((r) => r.method)
    expect(methods.sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage'])
    const partial = resultOf(
      await call(fixture, name, {
        inputResponses: { user_name: accept({ name: 'Bo' }) },
        requestState: r1.requestState,
      }),
    )
    expect(partial.resultType).toBe('input_required')
    expect(Object.keys(partial.inputRequests as object).sort()).toEqual(['client_roots', 'greeting'])
    const done = resultOf(
      await call(fixture, name, {
        inputResponses: {
          greeting: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' },
          client_roots: { roots: [{ uri: 'file:///a' }] },
        },
        requestState: partial.requestState,
      }),
    )
    expect(done.content).toEqual([{ type: 'text', text: 'Hi Bo (1 roots)' }])
  })

  it('re-asks for missing or malformed answers, ignores extra keys, rejects a non-object', async () => {
    const name = 'test_input_required_result_elicitation'
    const r1 = resultOf(await call(fixture, name))
    for (const inputResponses of [
      { wrong_key: accept({ name: 'X' }) },
      { user_name: 12345 },
      { user_name: accept({ name: 7 }) },
    ]) {
      const again = resultOf(await call(fixture, name, { inputResponses, requestState: r1.requestState }))
      expect(again.resultType).toBe('input_required')
      expect(Object.keys(again.inputRequests as object)).toEqual(['user_name'])
    }
    const extra = resultOf(
      await call(fixture, name, {
        inputResponses: { user_name: accept({ name: 'Eve' }), surplus: { anything: true } },
        requestState: r1.requestState,
      }),
    )
    expect(extra.content).toEqual([{ type: 'text', text: 'Hello, Eve!' }])
    const answer = await call(fixture, name, { inputResponses: null, requestState: r1.requestState })
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32602)
  })

  it('returns decline and cancel to the handler', async () => {
    const name = 'test_input_required_result_elicitation'
    const r1 = resultOf(await call(fixture, name))
    const declined = resultOf(
      await call(fixture, name, {
        inputResponses: { user_name: { action: 'decline' } },
        requestState: r1.requestState,
      }),
    )
    expect(declined.content).toEqual([{ type: 'text', text: 'No name given (decline)' }])
  })

  it('keeps handler data inside the state', async () => {
    const name = 'test_input_required_result_request_state'
    const r1 = resultOf(await call(fixture, name))
    const r2 = resultOf(
      await call(fixture, name, {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: r1.requestState,
      }),
    )
    expect((r2.content as { text: string }[])[0]?.text).toBe('state-ok: confirmation true')
  })
})

describe('requestState integrity', () => {
  const name = 'test_input_required_result_tampered_state'
  const confirm = { confirm: accept({ ok: true }) }

  it('rejects a tampered, truncated or forged state with -32602', async () => {
    const state = resultOf(await call(fixture, name)).requestState as string
    const [body, mac] = state.split('.') as [string, string]
    const forgedBody = btoa(JSON.stringify({ v: 1, m: 'tools/call', n: name, answers: {}, asked: [] }))
    for (const bad of [
      `${state}-TAMPERED`,
      body,
      `${body}.${mac.slice(2)}`,
      `${forgedBody}.${mac}`,
      42,
      '',
    ]) {
      const answer = await call(fixture, name, { inputResponses: confirm, requestState: bad })
      expect(errorOf(answer).code).toBe(-32602)
      expect(errorOf(answer).message).toMatch(/requestState/)
    }
  })

  it('rejects a state issued for another tool or other arguments', async () => {
    const state = resultOf(await call(fixture, name)).requestState
    const other = await call(fixture, 'test_input_required_result_elicitation', {
      inputResponses: { user_name: accept({ name: 'Mallory' }) },
      requestState: state,
    })
    expect(errorOf(other).message).toMatch(/another request/)
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'a-secret-of-sufficient-length' },
      tools: [
        defineTool({
          name: 'pay',
          inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
          handler: async ({ amount }, ctx) => {
            const ok = await ctx.input.elicit(
              { message: `Pay ${String(amount)}?`, requestedSchema: { type: 'object', properties: {} } },
              'confirm',
            )
            return `${ok.action} ${String(amount)}`
          },
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const asked = resultOf(
      await post(fetcher, 'tools/call', { name: 'pay', arguments: { amount: 1 } }, { meta: caps(ALL_CAPS) }),
    )
    const swapped = await post(
      fetcher,
      'tools/call',
      {
        name: 'pay',
        arguments: { amount: 1000 },
        inputResponses: { confirm: { action: 'accept', content: {} } },
        requestState: asked.requestState,
      },
      { meta: caps(ALL_CAPS) },
    )
    expect(errorOf(swapped).message).toMatch(/arguments changed/)
  })

  it('rejects an expired state', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'a-secret-of-sufficient-length', ttlMs: 1 },
      tools: [
        defineTool({
          name: 'ask',
          handler: askOk,
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const asked = resultOf(await call(fetcher, 'ask'))
    const issuedBy = Date.now()
    await until(() => Date.now() > issuedBy + 1) // the state's 1 ms lifetime has certainly passed
    const late = await call(fetcher, 'ask', {
      inputResponses: { q: { action: 'accept', content: {} } },
      requestState: asked.requestState,
    })
    expect(errorOf(late).message).toMatch(/expired/)
  })

  const askTool = defineTool({ name: 'ask', handler: askOk })

  it('accepts a state from another instance sharing the secret, rejects one from a foreign secret', async () => {
    const make = (secret: string) =>
      createFetchHandler(
        defineServer({ name: 's', version: '1', requestState: { secret }, tools: [askTool] }),
      )
    const a = make('shared-secret-for-the-cluster')
    const b = make('shared-secret-for-the-cluster')
    const foreign = make('some-other-secret-entirely')
    const asked = resultOf(await call(a, 'ask'))
    const retry = {
      inputResponses: { q: { action: 'accept', content: {} } },
      requestState: asked.requestState,
    }
    expect(resultOf(await call(b, 'ask', retry)).content).toEqual([{ type: 'text', text: 'accept' }])
    expect(errorOf(await call(foreign, 'ask', retry)).message).toMatch(/integrity/)
  })

  it('binds the state to the authenticated principal', async () => {
    let subject = 'alice'
    const fetcher = createFetchHandler(
      defineServer({
        name: 's',
        version: '1',
        requestState: { secret: 'principal-binding-secret' },
        tools: [askTool],
        security: { auth: { authenticate: () => ({ ok: true, auth: { subject, scopes: [] } }) } },
      }),
    )
    const asked = resultOf(await call(fetcher, 'ask'))
    subject = 'mallory'
    const retry = {
      inputResponses: { q: { action: 'accept', content: {} } },
      requestState: asked.requestState,
    }
    expect(errorOf(await call(fetcher, 'ask', retry)).message).toMatch(/another principal/)
    subject = 'alice'
    expect(resultOf(await call(fetcher, 'ask', retry)).resultType).toBe('complete')
  })

  it('warns once when no secret is configured', async () => {
    // The warning is once per process: a fresh copy of the modules stands for a fresh process, whatever other
    // test files sharing this worker already built.
    vi.resetModules()
    const fresh = await import('../src/index.js')
    const warnings: string[] = []
    const logger: ServerLogger = { error: () => {}, warn: (message) => warnings.push(message) }
    const tool = fresh.defineTool({ name: 'ask', handler: askOk })
    const fetcher = fresh.createFetchHandler(
      fresh.defineServer({ name: 's', version: '1', tools: [tool], logger }),
    )
    await call(fetcher, 'ask')
    await call(fetcher, 'ask')
    const aboutState = warnings.filter((message) => message.includes('requestState'))
    expect(aboutState).toHaveLength(1)
    expect(aboutState[0]).toMatch(/requestState\.secret/)
  })

  it('does no state work for tools that never ask: a garbage requestState is ignored', async () => {
    const answer = await call(fixture, 'test_simple_text', {
      requestState: 'not-a-state',
      inputResponses: { x: 1 },
    })
    expect(resultOf(answer).content).toEqual([
      { type: 'text', text: 'This is a simple text response for testing.' },
    ])
  })
})

describe('client capabilities', () => {
  it('answers -32021 (HTTP 400) with requiredCapabilities when the kind was not declared', async () => {
    const answer = await call(fixture, 'test_missing_capability', {}, {})
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })
    const url = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'url-elicitation-test-secret' },
      tools: [
        defineTool({
          name: 'connect',
          handler: async (_args, ctx) =>
            (await ctx.input.elicitUrl({ message: 'Connect', url: 'https://example.com/connect' })).action,
        }),
      ],
    })
    const formOnly = await call(createFetchHandler(url), 'connect', {}, { elicitation: {} })
    expect(errorOf(formOnly)).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    })
    const withUrl = resultOf(await call(createFetchHandler(url), 'connect', {}, { elicitation: { url: {} } }))
    expect(withUrl.inputRequests).toMatchObject({ 'elicit-url-1': { params: { mode: 'url' } } })
  })

  it('asks only for what this request declares', async () => {
    const sampling = resultOf(
      await call(fixture, 'test_input_required_result_capabilities', {}, { sampling: {} }),
    )
    expect(Object.values(sampling.inputRequests as object).map((r: { method: string }) => r.method)).toEqual([
      'sampling/createMessage',
    ])
    const form = resultOf(
      await call(fixture, 'test_input_required_result_capabilities', {}, { elicitation: {} }),
    )
    expect(Object.values(form.inputRequests as object).map((r: { method: string }) => r.method)).toEqual([
      'elicitation/create',
    ])
  })
})

describe('where input may be asked', () => {
  it('refuses input requests outside tools/call, prompts/get and resources/read (a server bug: -32603)', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'scope-test-secret-value' },
      logger: { error: () => {}, warn: () => {} },
      prompts: [
        definePrompt({
          name: 'p',
          arguments: [
            {
              name: 'a',
              complete: async (_value, { ctx }) => {
                await ctx.input.elicit({ message: 'no', requestedSchema: { type: 'object', properties: {} } })
                return []
              },
            },
          ],
          handler: () => 'x',
        }),
      ],
    })
    const answer = await post(
      createFetchHandler(server),
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } },
      { meta: caps(ALL_CAPS) },
    )
    expect(errorOf(answer).code).toBe(-32603)
  })

  it('binds arguments by value, not by key order', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'order-test-secret-value' },
      tools: [
        defineTool({
          name: 'pair',
          inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
          handler: askOk,
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const asked = resultOf(await call(fetcher, 'pair', { arguments: { a: 1, b: 2 } }))
    const retry = await call(fetcher, 'pair', {
      arguments: { b: 2, a: 1 },
      inputResponses: { q: { action: 'cancel' } },
      requestState: asked.requestState,
    })
    expect(resultOf(retry).content).toEqual([{ type: 'text', text: 'cancel' }])
  })
})

describe('multi-round-trip prompts/get', () => {
  it('asks, then builds the prompt on the retry', async () => {
    const first = resultOf(
      await post(
        fixture,
        'prompts/get',
        { name: 'test_input_required_result_prompt' },
        { meta: caps(ALL_CAPS) },
      ),
    )
    expect(first.resultType).toBe('input_required')
    const second = resultOf(
      await post(
        fixture,
        'prompts/get',
        {
          name: 'test_input_required_result_prompt',
          inputResponses: { user_context: accept({ context: 'tests' }) },
          requestState: first.requestState,
        },
        { meta: caps(ALL_CAPS) },
      ),
    )
    expect(second.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Answer using this context: tests' } },
    ])
  })
})

describe('answer keys are plain data', () => {
  it('treats keys such as __proto__ and toString like any other', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'odd-keys-secret-value' },
      tools: [
        defineTool({
          name: 'odd',
          handler: async (_args, ctx) => {
            const question = (message: string) => ({
              method: 'elicitation/create',
              params: { message, requestedSchema: { type: 'object', properties: {} } },
            })
            // Built by JSON.parse so that __proto__ is an own key, as it is on the wire.
            const requests = JSON.parse(
              JSON.stringify({ toString: question('b') }).replace(
                '{',
                `{"__proto__":${JSON.stringify(question('a'))},`,
              ),
            ) as Record<string, InputRequest>
            const answers = await ctx.input.ask(requests)
            return Object.keys(answers as object).join(',')
          },
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const first = resultOf(await call(fetcher, 'odd'))
    expect(Object.keys(first.inputRequests as object).sort()).toEqual(['__proto__', 'toString'])
    const retry = JSON.parse(`{"toString":{"action":"cancel"},"__proto__":{"action":"cancel"}}`) as Record<
      string,
      unknown
    >
    const done = await call(fetcher, 'odd', { inputResponses: retry, requestState: first.requestState })
    expect(resultOf(done).content).toEqual([{ type: 'text', text: '__proto__,toString' }])
  })
})
