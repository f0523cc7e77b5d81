/**
 * toolwire mounted in real web frameworks from npm, as the README's "Where it runs" recipes show: Express 5
 * (with and without `express.json()` in front), Fastify 5, Hono (a Next.js route handler: test/peers/next.test.ts). Each answers
 * a tools/call and keeps a listen stream; a body that another middleware consumed is answered at once.
 */
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler } from '../src/index.js'
import { createNodeHandler } from '../src/transports/http/node.js'
import { closeAll, exercise, listenNode, onClose, probeServer } from './helpers/framework-probe.js'
import { post } from './helpers/http.js'

afterEach(closeAll)

describe('Express 5', { timeout: 60_000 }, () => {
  it('serves behind express.json(), which already parsed the body', async () => {
    const app = express()
    app.use(express.json())
    app.all('/mcp', createNodeHandler(probeServer()))
    await exercise({ url: await listenNode(createServer(app)) })
  })

  it('serves without a body parser (the stream is read by toolwire)', async () => {
    const app = express()
    app.all('/mcp', createNodeHandler(probeServer()))
    await exercise({ url: await listenNode(createServer(app)) })
  })

  it('answers at once, with a clear error, when a middleware consumed the body and kept nothing', async () => {
    const app = express()
    app.use((req, _res, next) => {
      req.on('end', () => next())
      req.resume() // reads and drops the body, as a misconfigured middleware would
    })
    const server = probeServer()
    const errors: string[] = []
    server.logger.error = (message) => void errors.push(message)
    app.all('/mcp', createNodeHandler(server))
    const url = await listenNode(createServer(app))
    const answer = await post(fetch, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, {}, url)
    expect(answer.status).toBe(500)
    expect(JSON.stringify(answer.response)).toMatch(/body was read before the MCP handler/)
    expect(errors).toEqual(['MCP request body already consumed by other middleware'])
  })
})

describe('Fastify 5', { timeout: 60_000 }, () => {
  it('serves through reply.hijack() with the body kept as bytes', async () => {
    const fastify = Fastify({ forceCloseConnections: true })
    const handler = createNodeHandler(probeServer())
    // Keep the raw bytes, so malformed JSON gets toolwire's JSON-RPC parse error rather than Fastify's.
    fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    )
    fastify.all('/mcp', (request, reply) => {
      reply.hijack()
      handler(Object.assign(request.raw, { body: request.body }), reply.raw)
    })
    await fastify.listen({ port: 0, host: '127.0.0.1' })
    onClose(() => fastify.close())
    const { port } = fastify.server.address() as AddressInfo
    const url = `http://127.0.0.1:${port}/mcp`
    await exercise({ url })
    const malformed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":',
    })
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700)
  })
})

describe('Hono', { timeout: 60_000 }, () => {
  it('serves c.req.raw through the fetch handler', async () => {
    const app = new Hono()
    const handler = createFetchHandler(probeServer())
    app.all('/mcp', (c) => handler(c.req.raw))
    await exercise({ url: 'http://localhost/mcp', fetch: async (request) => app.fetch(request) })
  })

  it('answers at once when a middleware already read the body', async () => {
    const app = new Hono()
    const server = probeServer()
    server.logger.error = () => undefined
    const handler = createFetchHandler(server)
    app.use('/mcp', async (c, next) => {
      await c.req.raw.text()
      await next()
    })
    app.all('/mcp', (c) => handler(c.req.raw))
    const answer = await post(
      async (request) => app.fetch(request),
      'tools/call',
      { name: 'add', arguments: { a: 1, b: 2 } },
      {},
      'http://localhost/mcp',
    )
    expect(answer.status).toBe(500)
    expect(JSON.stringify(answer.response)).toMatch(/body was read before the MCP handler/)
  })
})
