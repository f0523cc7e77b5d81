/** The fixture in a real child process over stdio: MRTR round trips, listen streams, cancellation, shutdown. */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { meta } from './helpers/http.js'
import { ROOT } from './helpers/paths.js'
import { StdioPeer } from './helpers/stdio.js'

const MAIN = join(ROOT, 'test', 'fixtures', 'conformance', 'main.ts')
const SUB = 'io.modelcontextprotocol/subscriptionId'
const CAPS = meta({
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
})
type Message = Record<string, unknown>

/** The fixture over stdio, with a shared state secret; `request` adds the test's `_meta`. */
class FixturePeer extends StdioPeer {
  constructor() {
    super([MAIN, '--stdio'], { TOOLWIRE_STATE_SECRET: 'stdio-test-secret-value' }, '--import=tsx')
  }

  request(id: string | number, method: string, params: Message = {}): void {
    this.send({ jsonrpc: '2.0', id, method, params: { _meta: CAPS, ...params } })
  }

  override response(id: unknown): Promise<Message> {
    return this.take((m) => m.id === id && ('result' in m || 'error' in m))
  }
}

const subOf = (m: Message) => ((m.params as Message | undefined)?._meta as Message | undefined)?.[SUB]
const notification = (method: string, sub: unknown) => (m: Message) => m.method === method && subOf(m) === sub

let peer: FixturePeer | undefined
afterEach(() => {
  if (peer && peer.child.exitCode === null) peer.child.kill('SIGKILL')
  peer = undefined
})

describe('stdio in a child process', () => {
  it('completes multi-round-trip tool and prompt requests', async () => {
    peer = new FixturePeer()
    peer.request(1, 'tools/call', { name: 'test_input_required_result_multi_round', arguments: {} })
    const r1 = (await peer.response(1)).result as Message
    expect(r1.resultType).toBe('input_required')
    peer.request(2, 'tools/call', {
      name: 'test_input_required_result_multi_round',
      arguments: {},
      inputResponses: { step1: { action: 'accept', content: { name: 'Lin' } } },
      requestState: r1.requestState,
    })
    const r2 = (await peer.response(2)).result as Message
    peer.request(3, 'tools/call', {
      name: 'test_input_required_result_multi_round',
      arguments: {},
      inputResponses: { step2: { action: 'accept', content: { color: 'red' } } },
      requestState: r2.requestState,
    })
    expect(((await peer.response(3)).result as Message).content).toEqual([
      { type: 'text', text: 'Lin likes red' },
    ])
    peer.request(4, 'tools/call', {
      name: 'test_input_required_result_multi_round',
      arguments: {},
      inputResponses: { step2: { action: 'accept', content: { color: 'red' } } },
      requestState: `${String(r2.requestState)}x`,
    })
    expect(((await peer.response(4)).error as Message).code).toBe(-32602)
    peer.request(5, 'prompts/get', { name: 'test_input_required_result_prompt' })
    const p1 = (await peer.response(5)).result as Message
    peer.request(6, 'prompts/get', {
      name: 'test_input_required_result_prompt',
      inputResponses: { user_context: { action: 'accept', content: { context: 'stdio' } } },
      requestState: p1.requestState,
    })
    expect(((await peer.response(6)).result as Message).messages).toHaveLength(1)
  })

  it('demultiplexes several listen streams by id, and a cancelled one stops', async () => {
    peer = new FixturePeer()
    peer.request('tools-sub', 'subscriptions/listen', { notifications: { toolsListChanged: true } })
    peer.request(42, 'subscriptions/listen', { notifications: { promptsListChanged: true } })
    peer.request('both', 'subscriptions/listen', {
      notifications: { toolsListChanged: true, promptsListChanged: true },
    })
    for (const id of ['tools-sub', 42, 'both'])
      await peer.take(notification('notifications/subscriptions/acknowledged', id))
    peer.request(10, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    await peer.response(10)
    await peer.take(notification('notifications/tools/list_changed', 'tools-sub'))
    await peer.take(notification('notifications/tools/list_changed', 'both'))
    peer.request(11, 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} })
    await peer.response(11)
    await peer.take(notification('notifications/prompts/list_changed', 42))
    await peer.take(notification('notifications/prompts/list_changed', 'both'))
    // Cancel one subscription: it gets no response and no more notifications; the others continue.
    peer.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'both', reason: 'done' },
    })
    // stdio reads lines in order, so the cancellation is handled before request 12.
    peer.request(12, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    await peer.response(12)
    await peer.take(notification('notifications/tools/list_changed', 'tools-sub'))
    // A later round trip is the barrier: a notification for 'both' would have been written before its answer.
    peer.request(13, 'server/discover', {})
    await peer.response(13)
    expect(peer.messages.filter((m) => subOf(m) === 'both' || m.id === 'both')).toEqual([])
    expect(peer.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([])
  })

  it('ends open listen streams gracefully on SIGTERM, then exits', async () => {
    peer = new FixturePeer()
    peer.request('l1', 'subscriptions/listen', { notifications: { toolsListChanged: true } })
    await peer.take(notification('notifications/subscriptions/acknowledged', 'l1'))
    peer.child.kill('SIGTERM')
    const result = await peer.response('l1')
    expect(result.result).toMatchObject({ resultType: 'complete', _meta: { [SUB]: 'l1' } })
    await peer.take((m) => m.method === 'notifications/cancelled' && (m.params as Message).requestId === 'l1')
    expect(await peer.exited).toBe(0)
  })

  it('exits when stdin closes, even with a listen stream open', async () => {
    peer = new FixturePeer()
    peer.request('l', 'subscriptions/listen', { notifications: { toolsListChanged: true } })
    await peer.take(notification('notifications/subscriptions/acknowledged', 'l'))
    peer.child.stdin.end()
    expect(await peer.exited).toBe(0)
  })
})
