/**
 * A client that hangs up before its answer is written cancels the handler (streamable-http §Cancellation),
 * also when the connection closed before toolwire was handed the request: a framework that read the body
 * and passed it on late, after its client had gone.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { defineServer, defineTool } from '../src/index.js'
import { createNodeHandler } from '../src/transports/http/node.js'
import { meta, standardHeaders } from './helpers/http.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

it('cancels a handler whose client hung up before a framework handed the request on', async () => {
  let started = 0
  let cancelled = 0
  const server = defineServer({
    name: 'hangup',
    version: '1',
    tools: [
      defineTool({
        name: 'block',
        handler: (_args, ctx) =>
          new Promise<string>((resolve) => {
            started++
            const stop = (): void => {
              cancelled++
              resolve('stopped')
            }
            // Its first call waits for the validator to load: the request may be cancelled by then.
            if (ctx.signal.aborted) stop()
            else ctx.signal.addEventListener('abort', stop)
          }),
      }),
    ],
  })
  const mcp = createNodeHandler(server)
  // The framework: reads and parses the body, and hands the request on only once its response has closed.
  const http = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      res.once('close', () => {
        ;(req as IncomingMessage & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString())
        mcp(req, res)
      })
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => http.close(() => resolve())))
  const port = (http.address() as AddressInfo).port

  const params = { name: 'block', arguments: {}, _meta: meta() }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })
  const head = Object.entries({ ...standardHeaders('tools/call', params), host: `127.0.0.1:${port}` })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.end(`POST /mcp HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
    )
    // Sent in full, then the hang-up.
    socket.on('finish', () => socket.destroy())
    socket.on('close', () => resolve())
    socket.on('error', reject)
  })
  await expect.poll(() => started, { timeout: 20_000 }).toBe(1)
  await expect.poll(() => cancelled, { timeout: 20_000 }).toBe(1)
})
