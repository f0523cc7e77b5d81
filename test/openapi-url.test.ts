/**
 * A path key or an argument cannot move a fromOpenAPI tool's request to another host, and credentials reach
 * only the server URL's origin. Two real HTTP servers record what arrives: the API, and a second one on
 * another port standing in for an attacker's host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Client } from '../src/client/index.js'
import { fromOpenAPI, OpenAPIError, type OpenAPIOptions, type OpenAPIProblem } from '../src/openapi/index.js'
import { type RecordingApi, recordingApi, type SeenRequest, toolServers } from './helpers/openapi-api.js'

/** Records each request's raw target and headers; `/go?to=URL` redirects there. */
const recorder = (): Promise<RecordingApi> =>
  recordingApi((request, response) => {
    const to = new URL(request.url ?? '/', 'http://x').searchParams.get('to')
    if (request.url?.startsWith('/go?') && to !== null) {
      response.statusCode = 302
      response.setHeader('location', to)
      return response.end()
    }
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ ok: true }))
  })

let api: RecordingApi
let attacker: RecordingApi
let apiUrl: string
let attackerUrl: string
const servers = toolServers()

beforeAll(async () => {
  api = await recorder()
  attacker = await recorder()
  apiUrl = api.url
  attackerUrl = attacker.url
})

afterAll(async () => {
  await servers.close()
  await api.close()
  await attacker.close()
})

const ok = { 200: { description: 'ok' } }
const text = { type: 'string' }
const pathParam = (name: string): object => ({ name, in: 'path', required: true, schema: text })
const doc = (paths: Record<string, unknown>): object => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths,
})

const credentials: OpenAPIOptions = {
  auth: { type: 'bearer', token: 'secret-token' },
  headers: { 'x-api-key': 'secret-key' },
}

async function serve(document: object, options: OpenAPIOptions): Promise<Client> {
  return servers.connect(await fromOpenAPI(document, options))
}

async function refusal(document: object, options: OpenAPIOptions): Promise<OpenAPIError> {
  const error: unknown = await fromOpenAPI(document, { ...options, strict: true }).catch(
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(OpenAPIError)
  // Without strict, the same operations are skipped with the same reasons, and the rest become tools.
  const skipped: OpenAPIProblem[] = []
  const tools = await fromOpenAPI(document, {
    ...options,
    onWarning: ({ operation, reason }) => skipped.push({ operation, reason }),
  })
  expect(skipped).toEqual((error as OpenAPIError).problems)
  expect(tools.length).toBeGreaterThan(0)
  return error as OpenAPIError
}

describe('path keys that are not absolute paths are refused at load', () => {
  it('".attacker.example/collect", "{sub}/x", a port, "//host", "\\" and ".." segments each name their operation', async () => {
    const get = (operationId: string, parameters: object[] = []): object => ({
      get: { operationId, parameters, responses: ok },
    })
    const error = await refusal(
      doc({
        '.attacker.example/collect': get('collect'),
        '{sub}/x': get('sub', [pathParam('sub')]),
        [`:${attacker.port}/collect`]: get('port'),
        '//attacker.example/x': get('authority'),
        '/\\attacker.example/x': get('backslash'),
        '/a/../admin': get('dots'),
        '/a/%2E%2e/admin': get('encodedDots'),
        '/fine': get('fine'),
      }),
      { baseUrl: 'http://127.0.0.1', ...credentials },
    )
    expect(error.problems).toEqual([
      {
        operation: 'GET .attacker.example/collect (collect)',
        reason:
          'path ".attacker.example/collect" is not an absolute path: a path must start with "/" (OpenAPI §Paths Object); joined to the server URL it could change the host',
      },
      {
        operation: 'GET {sub}/x (sub)',
        reason:
          'path "{sub}/x" is not an absolute path: a path must start with "/" (OpenAPI §Paths Object); joined to the server URL it could change the host',
      },
      {
        operation: `GET :${attacker.port}/collect (port)`,
        reason: `path ":${attacker.port}/collect" is not an absolute path: a path must start with "/" (OpenAPI §Paths Object); joined to the server URL it could change the host`,
      },
      {
        operation: 'GET //attacker.example/x (authority)',
        reason: 'path "//attacker.example/x" starts with "//", which names a host, not a path',
      },
      {
        operation: 'GET /\\attacker.example/x (backslash)',
        reason: 'path "/\\\\attacker.example/x" holds a "\\", which URL parsers read as "/"',
      },
      {
        operation: 'GET /a/../admin (dots)',
        reason: `path "/a/../admin" has a ".." segment, which would leave the server URL's path`,
      },
      {
        operation: 'GET /a/%2E%2e/admin (encodedDots)',
        reason: `path "/a/%2E%2e/admin" has a "%2E%2e" segment, which would leave the server URL's path`,
      },
    ])
    expect(attacker.seen).toEqual([])
  })
  it('a server URL that is not http(s) is refused: in the document, per operation; as baseUrl, at once', async () => {
    const error = await refusal(
      {
        ...doc({
          '/a': { get: { operationId: 'a', responses: ok } },
          '/b': { get: { operationId: 'b', servers: [{ url: 'file:///etc' }], responses: ok } },
        }),
        servers: [{ url: apiUrl }],
      },
      credentials,
    )
    expect(error.problems).toEqual([
      { operation: 'GET /b (b)', reason: 'server URL "file:///etc" is not an http(s) URL' },
    ])
    await expect(fromOpenAPI(doc({}), { baseUrl: 'ftp://127.0.0.1/' })).rejects.toThrow(
      'baseUrl must be an http(s) URL',
    )
  })
})

describe('path parameter values stay inside one segment', () => {
  const files = doc({
    '/files/{name}': { get: { operationId: 'file', parameters: [pathParam('name')], responses: ok } },
    '/files/{name}/raw': { get: { operationId: 'raw', parameters: [pathParam('name')], responses: ok } },
  })

  it.each([
    ['../admin', '/files/..%2Fadmin'],
    ['a/b', '/files/a%2Fb'],
    ['x?y=1#z', '/files/x%3Fy%3D1%23z'],
    ['@evil', '/files/%40evil'],
    ['%2e%2e', '/files/%252e%252e'],
    ['127.0.0.1:1', '/files/127.0.0.1%3A1'],
    ['\\..\\admin', '/files/%5C..%5Cadmin'],
  ])('%j arrives as %s', async (name, path) => {
    const client = await serve(files, { baseUrl: apiUrl, ...credentials })
    const seen = await api.sent(client, 'file', { name })
    expect(seen.url).toBe(path)
    expect(seen.headers.authorization).toBe('Bearer secret-token')
    const raw = await api.sent(client, 'raw', { name })
    expect(raw.url).toBe(`${path}/raw`)
    expect(attacker.seen).toEqual([])
  })

  it('a base URL with a path prefix keeps it, with or without a trailing slash', async () => {
    for (const baseUrl of [`${apiUrl}/api/v1`, `${apiUrl}/api/v1/`]) {
      const client = await serve(files, { baseUrl, ...credentials })
      expect((await api.sent(client, 'file', { name: '../../admin' })).url).toBe(
        '/api/v1/files/..%2F..%2Fadmin',
      )
      expect((await api.sent(client, 'raw', { name: 'a b' })).url).toBe('/api/v1/files/a%20b/raw')
    }
  })

  it('a fragment in a path key is not sent; a query in it is kept before the parameters', async () => {
    const client = await serve(
      doc({
        '/cookies#form': { get: { operationId: 'form', responses: ok } },
        '/search?type=a': {
          get: {
            operationId: 'search',
            parameters: [{ name: 'q', in: 'query', schema: text }],
            responses: ok,
          },
        },
      }),
      { baseUrl: `${apiUrl}/v2?tenant=t1`, ...credentials },
    )
    expect((await api.sent(client, 'form', {})).url).toBe('/v2/cookies?tenant=t1')
    expect((await api.sent(client, 'search', { q: 'x&y' })).url).toBe('/v2/search?tenant=t1&type=a&q=x%26y')
  })
})

describe('credentials reach only the server URL origin', () => {
  const document = doc({
    '/go': {
      get: {
        operationId: 'go',
        parameters: [{ name: 'to', in: 'query', required: true, schema: text }],
        responses: ok,
      },
    },
  })

  it.each<[string, OpenAPIOptions]>([
    ['a bearer token and configured headers', credentials],
    [
      'an API key in a header',
      { auth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', value: 'secret-key' } },
    ],
    ['an API key in the query', { auth: { type: 'apiKey', in: 'query', name: 'key', value: 'secret-key' } }],
    ['an API key in a cookie', { auth: { type: 'apiKey', in: 'cookie', name: 'key', value: 'secret-key' } }],
    ['basic', { auth: { type: 'basic', username: 'ann', password: 'secret-key' } }],
  ])('%s: sent to the API, not past a redirect to another port of the same host', async (_label, options) => {
    const client = await serve(document, { baseUrl: apiUrl, ...options })
    const before = attacker.seen.length
    const result = await client.callTool('go', { to: `${attackerUrl}/landing` })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    const atApi = api.seen.at(-1) as SeenRequest
    expect(JSON.stringify(atApi)).toMatch(/secret-(?:token|key)|Basic /)
    expect(attacker.seen).toHaveLength(before + 1)
    const landed = attacker.seen.at(-1) as SeenRequest
    expect(landed.url).toBe('/landing')
    expect(landed.headers.authorization).toBeUndefined()
    expect(landed.headers.cookie).toBeUndefined()
    expect(JSON.stringify(landed)).not.toMatch(/secret|Basic /)
  })

  it('a redirect back to the API origin carries them again; one to the attacker never does', async () => {
    const client = await serve(document, { baseUrl: apiUrl, ...credentials })
    const before = { api: api.seen.length, attacker: attacker.seen.length }
    const back = `${apiUrl}/landing`
    const result = await client.callTool('go', { to: `${attackerUrl}/go?to=${encodeURIComponent(back)}` })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    expect(attacker.seen.slice(before.attacker).map((seen) => seen.headers.authorization)).toEqual([
      undefined,
    ])
    const atApi = api.seen.slice(before.api)
    expect(
      atApi.map((seen) => [seen.url.split('?')[0], seen.headers.authorization, seen.headers['x-api-key']]),
    ).toEqual([
      ['/go', 'Bearer secret-token', 'secret-key'],
      ['/landing', 'Bearer secret-token', 'secret-key'],
    ])
  })
})
