/**
 * A JSON object request body as flat arguments beside the parameters, seen by a real HTTP server that records
 * each request as it arrived: the raw body and its content type, a body property whose name a parameter also
 * has (nested under `body`), extra arguments into a body that allows them, and the bodies that stay one
 * `body` argument (non-object, `oneOf`, non-JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Client } from '../src/client/index.js'
import type { ToolDefinition } from '../src/index.js'
import { fromOpenAPI } from '../src/openapi/index.js'
import { type RecordingApi, recordingApi, toolServers } from './helpers/openapi-api.js'

let api: RecordingApi
let baseUrl: string
const servers = toolServers()

beforeAll(async () => {
  api = await recordingApi()
  baseUrl = api.url
})

afterAll(async () => {
  await servers.close()
  await api.close()
})

const ok = { 200: { description: 'ok' } }
const json = (schema: object, required = true): object => ({
  required,
  content: { 'application/json': { schema } },
})

/** Petstore's shapes: NewPet is what createPet takes; an update adds an `id` the path also has. */
const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  paths: {
    '/pets': {
      post: {
        operationId: 'createPet',
        requestBody: json({ $ref: '#/components/schemas/NewPet' }),
        responses: ok,
      },
    },
    '/pets/{id}': {
      put: {
        operationId: 'updatePet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: json({
          allOf: [
            { $ref: '#/components/schemas/NewPet' },
            { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
          ],
        }),
        responses: ok,
      },
    },
    '/labels': {
      post: {
        operationId: 'label',
        parameters: [{ name: 'dry', in: 'query', schema: { type: 'boolean' } }],
        requestBody: json(
          {
            type: 'object',
            properties: { name: { type: 'string' }, stamp: { type: 'string', readOnly: true } },
            additionalProperties: { type: 'string' },
          },
          false,
        ),
        responses: ok,
      },
    },
    '/strict': {
      post: {
        operationId: 'strict',
        requestBody: json({
          type: 'object',
          properties: { a: { type: 'integer' } },
          additionalProperties: false,
        }),
        responses: ok,
      },
    },
    '/tags': {
      post: {
        operationId: 'setTags',
        requestBody: json({ type: 'array', items: { type: 'string' } }),
        responses: ok,
      },
    },
    '/either': {
      post: {
        operationId: 'either',
        requestBody: json({
          oneOf: [
            { $ref: '#/components/schemas/NewPet' },
            { type: 'object', required: ['x'], properties: { x: { type: 'integer' } } },
          ],
        }),
        responses: ok,
      },
    },
  },
  components: {
    schemas: {
      NewPet: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, tag: { type: 'string' } },
      },
    },
  },
}

let tools: ToolDefinition[]
let client: Client

beforeAll(async () => {
  tools = await fromOpenAPI(DOCUMENT, { baseUrl })
  client = await servers.connect(tools)
})

const inputOf = (name: string): Record<string, unknown> =>
  tools.find((tool) => tool.config.name === name)?.config.inputSchema as Record<string, unknown>

/** Calls a tool and returns the one request the API saw. */
const sent = (tool: string, args: Record<string, unknown>) => api.sent(client, tool, args)

describe('a JSON object body as flat arguments', () => {
  it('createPet takes name and tag and sends them as the JSON body', async () => {
    expect(inputOf('createPet')).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, tag: { type: 'string' } },
      required: ['name'],
    })
    const request = await sent('createPet', { name: 'Tom', tag: 'cat' })
    expect([request.method, request.url]).toEqual(['POST', '/pets'])
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.body).toBe('{"name":"Tom","tag":"cat"}')
  })

  it('a required body property left out is invalid arguments, and nothing is sent', async () => {
    const before = api.seen.length
    const result = await client.callTool('createPet', { tag: 'cat' })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toMatch(/name/)
    expect(api.seen.length).toBe(before)
  })

  it('a body property a parameter also names stays in the body, under `body`', async () => {
    expect(inputOf('updatePet')).toMatchObject({
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        tag: { type: 'string' },
        body: {
          type: 'object',
          properties: { id: { type: 'integer' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
      required: ['id', 'name', 'body'],
    })
    const request = await sent('updatePet', { id: 5, name: 'Rex', body: { id: 6 } })
    expect([request.method, request.url]).toEqual(['PUT', '/pets/5'])
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.body).toBe('{"name":"Rex","id":6}')
    const missing = await client.callTool('updatePet', { id: 5, name: 'Rex' })
    expect(missing.isError).toBe(true)
  })

  it('extra arguments go into a body that allows extra properties; parameters stay parameters', async () => {
    const schema = inputOf('label')
    expect(schema.additionalProperties).toEqual({ type: 'string' })
    expect(schema.required).toBeUndefined() // the body is optional, so is its every property
    expect(Object.keys(schema.properties as object)).toEqual(['dry', 'name']) // readOnly stamp left out
    const request = await sent('label', { dry: true, name: 'x', colour: 'red' })
    expect(request.url).toBe('/labels?dry=true')
    expect(request.body).toBe('{"name":"x","colour":"red"}')
    const none = await sent('label', { dry: false })
    expect([none.body, none.headers['content-type']]).toEqual(['', undefined])
    // The extras' schema still holds: a number where strings are allowed is refused.
    const wrong = await client.callTool('label', { name: 'x', colour: 3 })
    expect(wrong.isError).toBe(true)
  })

  it('a body that refuses extra properties refuses extra arguments; a required one is sent even empty', async () => {
    const extra = await client.callTool('strict', { a: 1, b: 2 })
    expect(extra.isError).toBe(true)
    const request = await sent('strict', {})
    expect(request.body).toBe('{}')
  })

  it('a Swagger 2.0 body parameter is flat too', async () => {
    const [tool] = await fromOpenAPI(
      {
        swagger: '2.0',
        info: { title: 't', version: '1' },
        paths: {
          '/pets': {
            post: {
              operationId: 'createPet2',
              consumes: ['application/json'],
              parameters: [
                { name: 'pet', in: 'body', required: true, schema: { $ref: '#/definitions/NewPet' } },
              ],
              responses: ok,
            },
          },
        },
        definitions: { NewPet: DOCUMENT.components.schemas.NewPet },
      },
      { baseUrl },
    )
    expect(tool?.config.inputSchema).toEqual(inputOf('createPet'))
  })
})

describe('bodies that stay one `body` argument', () => {
  it('an array body', async () => {
    expect(inputOf('setTags')).toEqual({
      type: 'object',
      properties: { body: { type: 'array', items: { type: 'string' } } },
      required: ['body'],
      additionalProperties: false,
    })
    const request = await sent('setTags', { body: ['a', 'b'] })
    expect([request.headers['content-type'], request.body]).toEqual(['application/json', '["a","b"]'])
  })

  it('a oneOf body', async () => {
    expect(Object.keys(inputOf('either').properties as object)).toEqual(['body'])
    const request = await sent('either', { body: { name: 'Tom' } })
    expect(request.body).toBe('{"name":"Tom"}')
  })

  it('an allOf nested past 8 levels, and an allOf that refers to itself, stay `body`', async () => {
    const nest = (levels: number): object => {
      let schema: object = { type: 'object', properties: { deep: { type: 'string' } } }
      for (let n = 0; n < levels; n++) schema = { allOf: [schema] }
      return schema
    }
    const operation = (id: string, schema: object): object => ({
      post: { operationId: id, requestBody: json(schema), responses: ok },
    })
    const made = await fromOpenAPI(
      {
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/eight': operation('eight', nest(8)),
          '/nine': operation('nine', nest(9)),
          '/loop': operation('loop', { $ref: '#/components/schemas/Loop' }),
        },
        components: {
          schemas: {
            Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }, { properties: { a: {} } }] },
          },
        },
      },
      { baseUrl },
    )
    const keys = (name: string): string[] => {
      const schema = made.find((tool) => tool.config.name === name)?.config.inputSchema as
        { properties: object } | undefined
      return Object.keys(schema?.properties ?? {})
    }
    expect(keys('eight')).toEqual(['deep'])
    expect(keys('nine')).toEqual(['body'])
    expect(keys('loop')).toEqual(['body'])
  })
})
