/**
 * A client that never reads a chatty tool's SSE response: the server cuts the response off once its unsent
 * backlog passes the bound and cancels the handler, instead of buffering everything the tool sends.
 */
import { connect as connectTcp } from 'node:net'
import { describe, expect, it } from 'vitest'
import { defineServer, defineTool } from '../../src/index.js'
import { meta, standardHeaders } from '../helpers/http.js'
import { live } from '../helpers/live.js'

const CHUNK = 'x'.repeat(10_000)
const MAX_MESSAGES = 20_000 // 200 MB if nothing stopped it

describe('SSE responses of tools are bounded like listen streams', () => {
  it('cancels a chatty call whose client does not read, after a bounded amount of output', async () => {
    const seen = { sent: 0, aborted: false }
    const chatty = defineTool({
      name: 'chatty',
      handler: async (_args, ctx) => {
        for (let i = 1; i <= MAX_MESSAGES && !ctx.signal.aborted; i++) {
          ctx.progress(i, MAX_MESSAGES, CHUNK)
          seen.sent = i
          await new Promise((resolve) => setImmediate(resolve))
        }
        seen.aborted = ctx.signal.aborted
        return 'done'
      },
    })
    const mcp = await live(
      defineServer({
        name: 'chatty',
        version: '1.0.0',
        tools: [chatty],
        security: { toolTimeoutMs: false, output: false },
      }),
    )
    const { port } = new URL(mcp.url)
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { _meta: { ...meta(), progressToken: 'p' }, name: 'chatty', arguments: {} },
    })
    const headers = {
      ...standardHeaders('tools/call', { name: 'chatty' }),
      host: `127.0.0.1:${port}`,
      'content-length': String(Buffer.byteLength(body)),
    }
    const socket = connectTcp(Number(port), '127.0.0.1')
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve))
      socket.pause() // never reads: the kernel buffers fill, then the server's own
      socket.write(
        `POST /mcp HTTP/1.1\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\r\n')}\r\n\r\n${body}`,
      )
      await expect.poll(() => seen.aborted, { timeout: 60_000, interval: 100 }).toBe(true)
      // Kernel socket buffers hold a few MB at most; far below what the tool would have sent.
      expect(seen.sent).toBeLessThan(MAX_MESSAGES / 4)
    } finally {
      socket.destroy()
      await mcp.close()
    }
  })
})
