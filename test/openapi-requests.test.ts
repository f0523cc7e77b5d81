/**
 * How fromOpenAPI's tools write requests and read answers, seen by a real HTTP server that records each
 * request as it arrived: parameter styles (OpenAPI 3.1 §Style Examples), Swagger 2.0 collection formats and
 * form fields, request body media types, every kind of credential, and non-JSON answers.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { type Client, OAuthProvider } from '../src/client/index.js'
import { fromOpenAPI, type OpenAPIOptions } from '../src/openapi/index.js'
import { ROBOT_CLIENT, startAuthorizationServer } from './helpers/oidc.js'
import { type RecordingApi, recordingApi, type SeenRequest, toolServers } from './helpers/openapi-api.js'

let api: RecordingApi
let baseUrl: string
const PNG = Buffer.from('89504e470d0a1a0a', 'hex')

beforeAll(async () => {
  api = await recordingApi((request, response) => {
    if (request.url?.startsWith('/image')) {
      response.setHeader('content-type', 'image/png')
      return response.end(PNG)
    }
    if (request.url?.startsWith('/text')) {
      response.setHeader('content-type', 'text/plain; charset=utf-8')
      return response.end('plain words')
    }
    if (request.url?.startsWith('/created')) {
      // Created, with a body that lacks the documented `name`: the API drifted from its document.
      response.statusCode = 201
      response.setHeader('content-type', 'application/json')
      return response.end(JSON.stringify({ id: 41 }))
    }
    if (request.url?.startsWith('/list')) {
      response.setHeader('content-type', 'application/json')
      return response.end('[1,2,3]')
    }
    response.statusCode = request.method === 'DELETE' ? 204 : 200
    if (response.statusCode === 204) return response.end()
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ ok: true }))
  })
  baseUrl = api.url
})

const servers = toolServers()
afterAll(async () => {
  await servers.close()
  await api.close()
})

async function serve(document: object, options: OpenAPIOptions = {}): Promise<Client> {
  return (await serveWithUrl(document, options)).client
}

async function serveWithUrl(
  document: object,
  options: OpenAPIOptions = {},
): Promise<{ client: Client; url: string }> {
  return servers.start(await fromOpenAPI(document, { baseUrl, ...options }))
}

const ok = { 200: { description: 'ok' } }
const array = { type: 'array', items: { type: 'string' } }
const object = { type: 'object', properties: { r: { type: 'integer' }, g: { type: 'integer' } } }

const param = (name: string, place: string, schema: object, extra: object = {}): object => ({
  name,
  in: place,
  required: place === 'path',
  schema,
  ...extra,
})

describe('parameter serialisation (OpenAPI 3)', () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/simple/{list}/{obj}': {
        get: {
          operationId: 'simple',
          parameters: [param('list', 'path', array), param('obj', 'path', object, { explode: true })],
          responses: ok,
        },
      },
      '/label/{list}/matrix/{m}/{mo}': {
        get: {
          operationId: 'labelMatrix',
          parameters: [
            param('list', 'path', array, { style: 'label', explode: true }),
            param('m', 'path', array, { style: 'matrix' }),
            param('mo', 'path', object, { style: 'matrix', explode: true }),
          ],
          responses: ok,
        },
      },
      '/query': {
        get: {
          operationId: 'query',
          parameters: [
            param('form', 'query', array, { explode: false }),
            param('multi', 'query', array),
            param('space', 'query', array, { style: 'spaceDelimited' }),
            param('pipe', 'query', array, { style: 'pipeDelimited' }),
            param('deep', 'query', object, { style: 'deepObject', explode: true }),
            param('flat', 'query', object),
            { name: 'filter', in: 'query', content: { 'application/json': { schema: object } } },
            param('x-ids', 'header', array),
            param('session', 'cookie', { type: 'string' }),
          ],
          responses: ok,
        },
      },
    },
  }

  it('path parameters: simple, label and matrix, exploded or not', async () => {
    const client = await serve(document)
    expect((await api.sent(client, 'simple', { list: ['a', 'b c'], obj: { r: 1, g: 2 } })).url).toBe(
      '/simple/a,b%20c/r=1,g=2',
    )
    expect(
      (await api.sent(client, 'labelMatrix', { list: ['a', 'b'], m: ['x', 'y'], mo: { r: 1, g: 2 } })).url,
    ).toBe('/label/.a.b/matrix/;m=x,y/;r=1;g=2')
  })

  it('query, header and cookie parameters in every style', async () => {
    const client = await serve(document)
    const request = await api.sent(client, 'query', {
      form: ['a', 'b'],
      multi: ['a', 'b'],
      space: ['a', 'b'],
      pipe: ['a', 'b'],
      deep: { r: 1, g: 2 },
      flat: { r: 1, g: 2 },
      filter: { r: 3 },
      'x-ids': ['1', '2'],
      session: 's&1',
    })
    expect(request.url).toBe(
      '/query?form=a,b&multi=a&multi=b&space=a%20b&pipe=a|b&deep%5Br%5D=1&deep%5Bg%5D=2&r=1&g=2&filter=%7B%22r%22%3A3%7D',
    )
    expect(request.headers['x-ids']).toBe('1,2')
    expect(request.headers.cookie).toBe('session=s%261')
  })
})

describe('arguments that would make another request', () => {
  it('refuses a path parameter of "..", "." or nothing, and a header value with a line break, sending nothing', async () => {
    const client = await serve({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/files/{name}': {
          get: {
            operationId: 'file',
            parameters: [
              param('name', 'path', { type: 'string' }),
              param('x-note', 'header', { type: 'string' }),
            ],
            responses: ok,
          },
        },
      },
    })
    const before = api.seen.length
    for (const name of ['..', '.', '']) {
      const result = await client.callTool('file', { name })
      expect(result).toMatchObject({
        isError: true,
        content: [{ text: 'path parameter name may not be empty, "." or ".."' }],
      })
    }
    const header = await client.callTool('file', { name: 'a', 'x-note': 'one\r\nx-admin: yes' })
    expect(header.isError).toBe(true)
    expect((header.content[0] as { text: string }).text).toMatch(
      /^Cannot make the request from these arguments/,
    )
    expect(api.seen.length).toBe(before)
    expect((await api.sent(client, 'file', { name: '../etc/passwd' })).url).toBe('/files/..%2Fetc%2Fpasswd')
  })
})

describe('Swagger 2.0 collection formats and form fields', () => {
  it('sends csv, multi and pipes arrays, and formData as a urlencoded body', async () => {
    const client = await serve({
      swagger: '2.0',
      info: { title: 't', version: '1' },
      paths: {
        '/items': {
          post: {
            operationId: 'post2',
            consumes: ['application/x-www-form-urlencoded'],
            parameters: [
              { name: 'csv', in: 'query', type: 'array', items: { type: 'string' } },
              {
                name: 'multi',
                in: 'query',
                type: 'array',
                items: { type: 'string' },
                collectionFormat: 'multi',
              },
              {
                name: 'pipes',
                in: 'query',
                type: 'array',
                items: { type: 'string' },
                collectionFormat: 'pipes',
              },
              { name: 'name', in: 'formData', type: 'string', required: true },
              { name: 'count', in: 'formData', type: 'integer' },
            ],
            responses: ok,
          },
        },
      },
    })
    const request = await api.sent(client, 'post2', {
      csv: ['a', 'b'],
      multi: ['a', 'b'],
      pipes: ['a', 'b'],
      name: 'Rex & co',
      count: 2,
    })
    expect(request.url).toBe('/items?csv=a,b&multi=a&multi=b&pipes=a|b')
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(request.body).toBe('name=Rex+%26+co&count=2')
  })
})

describe('request bodies and answers', () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/form': {
        post: {
          operationId: 'form',
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: object } } },
          responses: ok,
        },
      },
      '/text': {
        post: { operationId: 'text', requestBody: { content: { 'text/plain': {} } }, responses: ok },
      },
      '/image': { get: { operationId: 'image', responses: ok } },
      '/list': { get: { operationId: 'list', responses: ok } },
      '/gone': { delete: { operationId: 'gone', responses: { 204: { description: 'gone' } } } },
    },
  }

  it('sends form and text bodies, and returns text, images, JSON arrays and empty answers', async () => {
    const client = await serve(document)
    const form = await api.sent(client, 'form', { body: { r: 1, g: 2 } })
    expect([form.headers['content-type'], form.body]).toEqual([
      'application/x-www-form-urlencoded',
      'r=1&g=2',
    ])
    const text = await api.sent(client, 'text', { body: 'hello' })
    expect([text.headers['content-type'], text.body]).toEqual(['text/plain', 'hello'])
    expect((await client.callTool('text', { body: 'again' })).content).toEqual([
      { type: 'text', text: 'plain words' },
    ])
    expect((await client.callTool('image', {})).content).toEqual([
      { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
    ])
    expect((await client.callTool('list', {})).content).toEqual([{ type: 'text', text: '[1,2,3]' }])
    expect((await client.callTool('gone', {})).content).toEqual([
      { type: 'text', text: 'HTTP 204 No Content' },
    ])
  })
})

describe('structured answers', () => {
  const answer = (schema: object, status = 200): object => ({
    [status]: { description: 'ok', content: { 'application/json': { schema } } },
  })
  const pet = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' } } }
  const document = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/kept': { get: { operationId: 'kept', responses: answer({ type: 'object', required: ['ok'] }) } },
      '/broken': {
        get: { operationId: 'broken', responses: answer({ type: 'object', required: ['name'] }) },
      },
      '/created': { post: { operationId: 'create', responses: answer(pet, 201) } },
    },
  }

  it('an answer that drifts from the documented schema is data with a warning, never a tool error', async () => {
    const { client, url } = await serveWithUrl(document)
    const listed = await client.listTools()
    // A declared outputSchema obliges every result to conform (server/tools §Output Schema): none is.
    expect(listed.tools.map((tool) => tool.outputSchema)).toEqual([undefined, undefined, undefined])
    expect((await client.callTool('kept', {})).structuredContent).toEqual({ ok: true })
    const created = await client.callTool('create', {})
    expect(created.isError).toBeFalsy()
    expect(created.content).toEqual([{ type: 'text', text: '{"id":41}' }])
    expect(created.structuredContent).toBeUndefined()
    expect(created._meta?.['dev.toolwire/openapi']).toEqual({
      responseMismatch: "missing required property 'name'",
    })
    // The official SDK client takes the result as it is (it refuses one without structuredContent only
    // when the tool declares an outputSchema).
    const sdk = new SdkClient({ name: 'sdk-v1', version: '1.0.0' })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)))
    try {
      await sdk.listTools()
      const result = await sdk.callTool({ name: 'create', arguments: {} })
      expect(result.isError).toBeFalsy()
      expect(result.content).toEqual([{ type: 'text', text: '{"id":41}' }])
      expect(result._meta?.['dev.toolwire/openapi']).toEqual({
        responseMismatch: "missing required property 'name'",
      })
    } finally {
      await sdk.close()
    }
  })

  it('with strictResponses the outputSchema is published and an answer the document does not describe is a tool error', async () => {
    const client = await serve(document, { strictResponses: true })
    const listed = await client.listTools()
    expect(listed.tools.find((tool) => tool.name === 'create')?.outputSchema).toMatchObject({
      required: ['id', 'name'],
    })
    expect((await client.callTool('kept', {})).structuredContent).toEqual({ ok: true })
    const broken = await client.callTool('broken', {})
    expect(broken).toMatchObject({
      isError: true,
      content: [
        {
          text: "HTTP 200 OK: the answer does not match the API's documented schema: missing required property 'name'",
        },
      ],
    })
    const created = await client.callTool('create', {})
    expect(created).toMatchObject({
      isError: true,
      content: [
        {
          text: "HTTP 201 Created: the answer does not match the API's documented schema: missing required property 'name'",
        },
      ],
    })
    expect(created._meta?.['dev.toolwire/openapi']).toBeUndefined()
  })
})

describe('credentials', () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: { '/me': { get: { operationId: 'me', responses: ok } } },
  }

  it.each<[string, OpenAPIOptions['auth'], (request: SeenRequest) => unknown, unknown]>([
    [
      'bearer (a function)',
      { type: 'bearer', token: async () => 't-1' },
      (r) => r.headers.authorization,
      'Bearer t-1',
    ],
    [
      'basic',
      { type: 'basic', username: 'ann', password: 'pä:ss' },
      (r) => r.headers.authorization,
      `Basic ${Buffer.from('ann:pä:ss').toString('base64')}`,
    ],
    [
      'an API key in the query',
      { type: 'apiKey', in: 'query', name: 'key', value: 'k 1' },
      (r) => r.url,
      '/me?key=k+1',
    ],
    [
      'an API key in a cookie',
      { type: 'apiKey', in: 'cookie', name: 'key', value: 'k1' },
      (r) => r.headers.cookie,
      'key=k1',
    ],
    [
      'a function of the call',
      ({ headers, context }) => headers.set('x-caller', context.auth?.subject ?? 'anonymous'),
      (r) => r.headers['x-caller'],
      'anonymous',
    ],
  ])('%s', async (_label, auth, pick, expected) => {
    const client = await serve(document, auth === undefined ? {} : { auth })
    expect(pick(await api.sent(client, 'me', {}))).toBe(expected)
  })

  it("toolwire's OAuth client (client credentials) gets a token from a real authorization server", async () => {
    const authorization = await startAuthorizationServer({
      resourceScopes: 'pets:read',
      clients: [ROBOT_CLIENT],
    })
    const jwks = createRemoteJWKSet(new URL(`${authorization.issuer}/jwks`))
    // A resource server (RFC 9728): metadata naming its authorization server, 401 until a valid token comes.
    const resource = createServer((request, response) => {
      const url = `http://127.0.0.1:${(resource.address() as AddressInfo).port}`
      if (request.url === '/.well-known/oauth-protected-resource') {
        response.setHeader('content-type', 'application/json')
        return response.end(
          JSON.stringify({ resource: `${url}/`, authorization_servers: [authorization.issuer] }),
        )
      }
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
      const refuse = (): void => {
        response.statusCode = 401
        response.setHeader(
          'www-authenticate',
          `Bearer resource_metadata="${url}/.well-known/oauth-protected-resource"`,
        )
        response.end()
      }
      if (!token) return refuse()
      jwtVerify(token, jwks, { issuer: authorization.issuer, audience: `${url}/` }).then(({ payload }) => {
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ client: payload.client_id, scope: payload.scope }))
      }, refuse)
    })
    await new Promise<void>((resolve) => resource.listen(0, '127.0.0.1', resolve))
    const resourceUrl = `http://127.0.0.1:${(resource.address() as AddressInfo).port}/`
    try {
      const provider = new OAuthProvider(resourceUrl, {
        clientCredentials: {
          clientId: ROBOT_CLIENT.client_id,
          clientSecret: ROBOT_CLIENT.client_secret,
          scope: 'pets:read',
        },
      })
      const client = await serve(document, { baseUrl: resourceUrl, auth: { type: 'oauth', provider } })
      const result = await client.callTool('me', {})
      expect(result.structuredContent).toEqual({ client: 'robot', scope: 'pets:read' })
    } finally {
      resource.closeAllConnections()
      await new Promise((resolve) => resource.close(resolve))
      await authorization.close()
    }
  })
})
