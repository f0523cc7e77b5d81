/**
 * fromOpenAPI against a real API: Fastify with @fastify/swagger writes the document from its own routes, the
 * generated tools are served by toolwire over HTTP, and toolwire's client calls them.
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect, RequestCancelledError } from '../src/client/index.js'
import { defineServer } from '../src/index.js'
import { fromOpenAPI } from '../src/openapi/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { until } from './helpers/wait.js'

const pet = {
  type: 'object',
  required: ['id', 'name', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['available', 'sold'] },
    tags: { type: 'array', items: { type: 'string' } },
    owner: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  },
} as const

/** What the API saw: the slow request's life, and the headers the other origin received. */
const seen = { slowStarted: 0, slowClosed: 0, elsewhere: [] as IncomingHttpHeaders[] }
let api: FastifyInstance
let elsewhere: HttpServer
let mcp: RunningServer
let client: Client
let buildMs = 0

async function startApi(elsewhereUrl: string): Promise<FastifyInstance> {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(swagger, { openapi: { info: { title: 'Pets', version: '1.0.0' } } })
  app.get(
    '/pets/:petId',
    {
      schema: {
        operationId: 'getPet',
        summary: 'Reads a pet',
        tags: ['pets'],
        params: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
        headers: {
          type: 'object',
          properties: { 'x-trace': { type: 'string' } },
        },
        response: { 200: pet },
      },
    },
    async (request) => {
      const { petId } = request.params as { petId: number }
      return {
        id: petId,
        name: `pet ${petId} ${request.headers['x-trace'] ?? ''}`.trim(),
        status: 'available',
        tags: [String(request.headers['x-api-key'])],
      }
    },
  )
  app.get(
    '/pets',
    {
      schema: {
        operationId: 'listPets',
        tags: ['pets'],
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['available', 'sold'] },
            tags: { type: 'array', items: { type: 'string' } },
            limit: { type: 'integer', default: 10, minimum: 1 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: { query: { type: 'object', additionalProperties: true }, count: { type: 'integer' } },
          },
        },
      },
    },
    async (request) => ({ query: request.query as object, count: 0 }),
  )
  app.post(
    '/pets',
    {
      schema: {
        operationId: 'createPet',
        tags: ['pets'],
        body: { ...pet, required: ['name', 'status'] },
        response: { 201: pet },
      },
    },
    async (request, reply) => reply.code(201).send({ ...(request.body as object), id: 7 }),
  )
  app.delete(
    '/pets/:petId',
    {
      schema: {
        operationId: 'deletePet',
        params: { type: 'object', properties: { petId: { type: 'integer' } } },
      },
    },
    async (_request, reply) => reply.code(404).send({ message: `no such pet; ${'detail '.repeat(500)}` }),
  )
  app.get('/broken', { schema: { operationId: 'broken' } }, async (_request, reply) =>
    reply.code(503).type('text/plain').send('the database is down'),
  )
  app.get('/slow', { schema: { operationId: 'slow' } }, (request, reply) => {
    seen.slowStarted++
    // On a loaded machine the caller may give up before this handler runs: then the socket is already gone.
    const socket = request.raw.socket
    if (socket.destroyed) seen.slowClosed++
    else socket.on('close', () => seen.slowClosed++)
    void reply // never answers: the caller must give up
  })
  app.get('/moved', { schema: { operationId: 'moved' } }, async (_request, reply) =>
    reply.redirect(`${elsewhereUrl}/landing`, 302),
  )
  app.get('/old-pet', { schema: { operationId: 'oldPet' } }, async (_request, reply) =>
    reply.redirect('/pets/5', 301),
  )
  app.get('/big', { schema: { operationId: 'big' } }, async () => ({ blob: 'x'.repeat(1_100_000) }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    seen.elsewhere.push(request.headers)
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ landed: true }))
  })
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
  api = await startApi(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`)
  const baseUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`
  const started = performance.now()
  const tools = await fromOpenAPI(api.swagger(), {
    baseUrl,
    auth: { type: 'apiKey', in: 'header', name: 'x-api-key', value: 'secret-key' },
    headers: { authorization: 'Bearer also-secret' },
    // Fastify answers as its schemas say: the documented output schemas are published and held to.
    strictResponses: true,
  })
  buildMs = performance.now() - started
  mcp = await serveNode(defineServer({ name: 'pets', version: '1.0.0', tools }), {
    host: '127.0.0.1',
    port: 0,
  })
  client = connect({ url: mcp.url })
})

afterAll(async () => {
  await client?.close()
  await mcp?.close()
  await api?.close()
  elsewhere?.closeAllConnections()
  await new Promise((resolve) => elsewhere?.close(resolve))
})

describe('fromOpenAPI with a Fastify API', () => {
  it('lists one tool per operation with schemas and annotations from the document', async () => {
    console.log(`fromOpenAPI built the Fastify document's tools in ${buildMs.toFixed(0)} ms`)
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect([...byName.keys()].sort()).toEqual(
      ['big', 'broken', 'createPet', 'deletePet', 'getPet', 'listPets', 'moved', 'oldPet', 'slow'].sort(),
    )
    const get = byName.get('getPet')!
    expect(get.title).toBe('Reads a pet')
    expect(get.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: true })
    expect(get.inputSchema.required).toEqual(['petId'])
    expect(get.inputSchema.properties).toMatchObject({
      petId: { type: 'integer' },
      'x-trace': { type: 'string' },
    })
    expect(get.outputSchema).toMatchObject({ type: 'object', required: ['id', 'name', 'status'] })
    const list = byName.get('listPets')!.inputSchema.properties as Record<string, Record<string, unknown>>
    expect(list.status).toMatchObject({ enum: ['available', 'sold'] })
    expect(list.tags).toMatchObject({ type: 'array', items: { type: 'string' } })
    expect(list.limit).toMatchObject({ type: 'integer', default: 10, minimum: 1 })
    const create = byName.get('createPet')!
    // The JSON object body is flat: its required properties are required arguments.
    expect(create.inputSchema.required).toEqual(['name', 'status'])
    expect(create.annotations).toEqual({ openWorldHint: true })
    expect(byName.get('deletePet')!.annotations).toEqual({
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    })
  })

  it('sends path, header and query parameters, with credentials, and returns structured content', async () => {
    const result = await client.callTool('getPet', { petId: 42, 'x-trace': 'abc' })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({
      id: 42,
      name: 'pet 42 abc',
      status: 'available',
      tags: ['secret-key'],
    })
    const listed = await client.callTool('listPets', { status: 'sold', tags: ['a', 'b c'], limit: 3 })
    expect(listed.structuredContent).toEqual({
      query: { status: 'sold', tags: ['a', 'b c'], limit: 3 },
      count: 0,
    })
  })

  it('refuses arguments the schema refuses before anything is sent', async () => {
    const result = await client.callTool('listPets', { status: 'lost' })
    expect(result.isError).toBe(true)
  })

  it('sends a JSON body with nested objects and arrays', async () => {
    const body = {
      name: 'Rex',
      status: 'available',
      tags: ['dog'],
      owner: { name: 'Ann', address: { city: 'Oslo' } },
    }
    const result = await client.callTool('createPet', body)
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ ...body, id: 7 })
  })

  it('turns 4xx and 5xx answers into tool errors with the status and a bounded excerpt', async () => {
    const missing = await client.callTool('deletePet', { petId: 1 })
    expect(missing.isError).toBe(true)
    const text = (missing.content[0] as { text: string }).text
    expect(text).toMatch(/^HTTP 404 Not Found: \{"message":"no such pet;/)
    expect(text).toMatch(/… \(\d+ more characters\)$/)
    expect(text.length).toBeLessThan(1200)
    const down = await client.callTool('broken', {})
    expect(down).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 503 Service Unavailable: the database is down' }],
    })
  })

  it('refuses an answer past maxResponseBytes (1 MiB by default)', async () => {
    const result = await client.callTool('big', {})
    expect(result.isError).toBe(true)
    expect((result.content[0] as { text: string }).text).toContain('larger than 1048576 bytes')
  })

  it('follows a redirect within the origin with the credentials', async () => {
    const result = await client.callTool('oldPet', {})
    expect(result.structuredContent).toEqual({
      id: 5,
      name: 'pet 5',
      status: 'available',
      tags: ['secret-key'],
    })
  })

  it('follows a redirect to another origin without the credentials', async () => {
    const result = await client.callTool('moved', {})
    expect(result.structuredContent).toEqual({ landed: true })
    expect(seen.elsewhere).toHaveLength(1)
    const headers = seen.elsewhere[0]!
    expect(headers.authorization).toBeUndefined()
    expect(headers['x-api-key']).toBeUndefined()
  })

  it('aborts the API request when the client cancels the call', async () => {
    const controller = new AbortController()
    const [started, closed] = [seen.slowStarted, seen.slowClosed]
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await until(() => seen.slowStarted > started, undefined, 'the API saw the slow request')
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    await until(() => seen.slowClosed > closed, undefined, 'the API request was aborted')
  })

  it('aborts the API request when the tool times out (timeoutMs)', async () => {
    const baseUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`
    // The requests toolwire hands to fetch, so the test sees their signals (the real fetch still sends them).
    const sent: Request[] = []
    const tools = await fromOpenAPI(api.swagger(), {
      baseUrl,
      timeoutMs: 1000,
      include: { operationIds: ['slow'] },
      fetch: (input, init) => {
        const request = new Request(input, init)
        sent.push(request)
        return fetch(request)
      },
    })
    const server = await serveNode(defineServer({ name: 'slow', version: '1.0.0', tools }), {
      host: '127.0.0.1',
      port: 0,
    })
    const timed = connect({ url: server.url })
    try {
      const result = await timed.callTool('slow', {})
      expect(result.isError).toBe(true)
      expect(JSON.stringify(result.content)).toContain('timed out')
      // toolwire's part: the request it sent was aborted by the tool's deadline. (Whether the connection to the
      // API closes at once is up to the HTTP client.)
      expect(sent).toHaveLength(1)
      expect(sent[0]!.signal.aborted).toBe(true)
    } finally {
      await timed.close()
      await server.close()
    }
  })
})
