/** The test helper that checks every server message: it must refuse what the schema refuses. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer } from '../src/index.js'
import { errorOf, postRaw, standardHeaders } from './helpers/http.js'
import { assertServerMessage } from './helpers/spec-schema.js'

const listResult = { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'public' }
const response = (result: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, result })

describe('assertServerMessage', () => {
  it('accepts valid results, errors and notifications', () => {
    expect(() => assertServerMessage(response(listResult), 'tools/list')).not.toThrow()
    expect(() =>
      assertServerMessage({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } }),
    ).not.toThrow()
    const progress = { progressToken: 't', progress: 1 }
    expect(() =>
      assertServerMessage({ jsonrpc: '2.0', method: 'notifications/progress', params: progress }),
    ).not.toThrow()
    const urlMode = { mode: 'url', message: 'Connect', url: 'https://example.com/connect' }
    const inputRequired = {
      resultType: 'input_required',
      inputRequests: { a: { method: 'elicitation/create', params: urlMode } },
    }
    expect(() => assertServerMessage(response(inputRequired), 'tools/call')).not.toThrow()
  })

  it.each([
    ['no resultType', response({ tools: [], ttlMs: 0, cacheScope: 'public' }), 'tools/list'],
    ['a negative ttlMs', response({ ...listResult, ttlMs: -1 }), 'tools/list'],
    ['an unknown cacheScope', response({ ...listResult, cacheScope: 'everyone' }), 'tools/list'],
    ['a tool without inputSchema', response({ ...listResult, tools: [{ name: 'x' }] }), 'tools/list'],
    ['content that is not a block', response({ resultType: 'complete', content: ['x'] }), 'tools/call'],
    ['input_required with nothing to do', response({ resultType: 'input_required' }), 'tools/call'],
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/nope' }, undefined],
    ['an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }, undefined],
    ['an extra envelope key', { ...response(listResult), extra: 1 }, 'tools/list'],
  ])('refuses %s', (_, message, method) => {
    expect(() => assertServerMessage(message, method)).toThrow(/breaks the MCP schema/)
  })
})

describe('request ids', () => {
  const fetcher = createFetchHandler(defineServer({ name: 's', version: '1' }))

  it('refuses an integer id a JSON parser cannot keep exact, without echoing a rounded id', async () => {
    const headers = standardHeaders('tools/list', {})
    for (const id of ['9007199254740993', '1e300', '-9007199254740993']) {
      const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{}}`
      const answer = await postRaw(fetcher, body, headers)
      expect(errorOf(answer).code, id).toBe(-32600)
      expect(answer.response && 'id' in answer.response ? answer.response.id : undefined).toBeUndefined()
    }
  })
})
