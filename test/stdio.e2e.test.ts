import { afterEach, describe, expect, it } from 'vitest'
import { meta } from './helpers/http.js'
import { testServer } from './helpers/paths.js'
import { StdioPeer } from './helpers/stdio.js'

const SERVER = testServer('core-server.mjs')
const peers: StdioPeer[] = []
const start = (): StdioPeer => {
  const peer = new StdioPeer(['serve', SERVER, '--stdio'])
  peers.push(peer)
  return peer
}
const call = (id: string | number, name: string, args: Record<string, unknown> = {}, extraMeta = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { _meta: meta(extraMeta), name, arguments: args },
})

afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.stop()))
})

describe('stdio transport in a real child process', () => {
  it('answers many requests in flight, out of order, each by its own id', async () => {
    const peer = start()
    const count = 50
    for (let i = 0; i < count; i++) {
      // The first waits long enough that it finishes last even on a busy machine.
      peer.send(call(`r${i}`, 'echo', { text: `t${i}`, delayMs: i === 0 ? 3_000 : (count - i) * 2 }))
    }
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => peer.response(`r${i}`)))
    responses.forEach((response, i) => {
      const result = response.result as { content: { text: string }[] }
      expect(result.content[0]?.text).toBe(`t${i}`)
    })
    // The later requests waited less, so the server answered out of order.
    const order = peer.messages.map((m) => m.id)
    expect(order.indexOf('r49')).toBeLessThan(order.indexOf('r0'))
  })

  it('notifications/cancelled aborts the handler and no response is ever sent for it', async () => {
    const peer = start()
    peer.send(call(0, 'echo', { text: 'ready' }))
    await peer.response(0)
    peer.send(call(1, 'block'))
    await expect.poll(() => peer.stderr).toContain('block started')
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } })
    await expect.poll(() => peer.stderr).toContain('block cancelled (1)')
    peer.send(call(2, 'cancelled_count'))
    const count = await peer.response(2)
    expect((count.result as { structuredContent: unknown }).structuredContent).toEqual({ cancelled: 1 })
    // A later round trip is the barrier: an answer to request 1 would have been written before it.
    peer.send(call(3, 'echo', { text: 'after' }))
    await peer.response(3)
    expect(peer.messages.some((m) => m.id === 1)).toBe(false)
  })

  it('ignores cancellation of unknown or finished requests', async () => {
    const peer = start()
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } })
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { bogus: true } })
    peer.send(call(3, 'echo', { text: 'still fine' }))
    const response = await peer.response(3)
    expect((response.result as { content: { text: string }[] }).content[0]?.text).toBe('still fine')
  })

  it('sends progress and logs correlated to the request, before its response', async () => {
    const peer = start()
    peer.send(call(4, 'progress', {}, { progressToken: 'p4', 'io.modelcontextprotocol/logLevel': 'info' }))
    await peer.response(4)
    const progress = peer.messages.filter((m) => m.method === 'notifications/progress')
    expect(progress.map((m) => (m.params as { progress: number }).progress)).toEqual([1, 2, 3])
    expect(progress.every((m) => (m.params as { progressToken: string }).progressToken === 'p4')).toBe(true)
    const log = peer.messages.find((m) => m.method === 'notifications/message')
    expect(log?.params).toMatchObject({ level: 'info', data: 'done', logger: 'progress' })
    expect(peer.messages.findIndex((m) => m.id === 4)).toBe(peer.messages.length - 1)
  })

  it('answers bad input with JSON-RPC errors and keeps serving', async () => {
    const peer = start()
    peer.writeRaw('{not json\n')
    peer.writeRaw('[1,2]\n')
    peer.writeRaw(Buffer.from([0xff, 0xfe, 0x0a]))
    peer.writeRaw('{"jsonrpc":"2.0","id":9,"method":42}\n')
    peer.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'echo' } })
    peer.send({ jsonrpc: '2.0', id: 11, method: 'no/such/method', params: { _meta: meta() } })
    peer.send(call(12, 'echo', { text: 'after' }))
    await peer.response(12)
    const errors = peer.messages.filter((m) => 'error' in m).map((m) => (m.error as { code: number }).code)
    expect(errors).toEqual([-32700, -32600, -32700, -32600, -32602, -32601])
    expect((peer.messages.find((m) => m.id === 9)?.error as { code: number }).code).toBe(-32600)
  })

  it('answers -32022, -32021 and -32602 (missing _meta) the same way as over HTTP', async () => {
    const peer = start()
    peer.send({
      jsonrpc: '2.0',
      id: 'v',
      method: 'server/discover',
      params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) },
    })
    peer.send(call('c', 'needs_sampling'))
    peer.send({ jsonrpc: '2.0', id: 'm', method: 'tools/list', params: {} })
    expect((await peer.response('v')).error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '1900-01-01' },
    })
    expect((await peer.response('c')).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    })
    expect((await peer.response('m')).error).toMatchObject({ code: -32602 })
  })

  it('refuses a second request with an id that is still in flight', async () => {
    const peer = start()
    peer.send(call('dup', 'echo', { text: 'first', delayMs: 200 }))
    peer.send(call('dup', 'echo', { text: 'second' }))
    await peer.next((m) => m.id === 'dup' && 'error' in m)
    const first = await peer.next((m) => m.id === 'dup' && 'result' in m)
    expect((first.result as { content: { text: string }[] }).content[0]?.text).toBe('first')
  })

  it('writes only JSON-RPC to stdout and exits cleanly on end of input', async () => {
    const peer = start()
    peer.send(call(20, 'echo', { text: 'bye', delayMs: 50 }))
    peer.child.stdin.end()
    expect(await peer.exited).toBe(0)
    expect(peer.messages.map((m) => m.id)).toEqual([20])
  })

  it('exits cleanly on SIGTERM', async () => {
    const peer = start()
    peer.send(call(30, 'echo', { text: 'x' }))
    await peer.response(30)
    peer.child.kill('SIGTERM')
    expect(await peer.exited).toBe(0)
  })
})
