/**
 * fromOpenAPI on a pinned corpus of published documents (test/vendor/openapi-corpus, each folder naming its
 * package@version): GitHub's REST API, Scalar's Galaxy (OpenAPI 3.1, the release the problem was reported
 * against and the current one), the Swagger 2.0 and OpenAPI 3.0 Petstores, ReadMe's allOf/oneOf/anyOf
 * examples, Netlify's API (Swagger 2.0) and Figma's (OpenAPI 3.1, YAML). For each: the exact number of tools,
 * the exact operations skipped and why, and one call of each kind the document has (path parameter, query,
 * flat JSON body, other bodies, form, multipart) through a real MCP server and client to an API on 127.0.0.1
 * that records what arrives; multipart bodies are read back with fetch's own multipart parser.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Client } from '../src/client/index.js'
import { fromOpenAPI, type OpenAPIOptions, type OpenAPIWarning } from '../src/openapi/index.js'
import { type OpenAPIBuild, openAPITools } from '../src/openapi/from-openapi.js'
import { type RecordingApi, recordingApi, type SeenRequest, toolServers } from './helpers/openapi-api.js'

const CORPUS = join(import.meta.dirname, 'vendor', 'openapi-corpus')
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

let api: RecordingApi
const servers = toolServers()
const scratch = mkdtempSync(join(tmpdir(), 'toolwire-corpus-'))

beforeAll(async () => {
  api = await recordingApi()
})

afterAll(async () => {
  await servers.close()
  await api.close()
  rmSync(scratch, { recursive: true, force: true })
})

/** How many operations a document declares, counted from its JSON alone. */
function operationCount(document: { paths?: Record<string, Record<string, unknown>> }): number {
  return Object.values(document.paths ?? {}).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => METHODS.has(key)).length,
    0,
  )
}

const readJson = (file: string): { paths?: Record<string, Record<string, unknown>> } =>
  JSON.parse(readFileSync(file, 'utf8')) as { paths?: Record<string, Record<string, unknown>> }

interface Loaded {
  readonly build: OpenAPIBuild
  readonly warnings: readonly OpenAPIWarning[]
  readonly client: Client
}

/** Loads a document with its calls going to the recording API (under `prefix`), and connects a client. */
async function load(file: string, prefix = '', options: OpenAPIOptions = {}): Promise<Loaded> {
  const warnings: OpenAPIWarning[] = []
  const build = await openAPITools(file, {
    baseUrl: `${api.url}${prefix}`,
    onWarning: (warning) => warnings.push(warning),
    ...options,
  })
  const client = await servers.connect(build.tools.map((entry) => entry.tool))
  return { build, warnings, client }
}

const target = (seen: SeenRequest): { path: string; query: [string, string][] } => {
  const url = new URL(seen.url, 'http://api')
  return { path: url.pathname, query: [...url.searchParams] }
}

/** One property's schema in a listed tool's input schema. */
const propertyOf = (schema: object | undefined, name: string): unknown =>
  ((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {})[name]

/** A multipart body as fetch's parser reads it: each field's name and text, in order. */
async function multipartFields(seen: SeenRequest): Promise<[string, string][]> {
  const type = seen.headers['content-type'] ?? ''
  expect(type).toMatch(/^multipart\/form-data; boundary=/)
  const form = await new Response(seen.body, { headers: { 'content-type': type } }).formData()
  const fields: [string, string][] = []
  form.forEach((value, name) =>
    fields.push([name, typeof value === 'string' ? value : `(file ${value.name})`]),
  )
  return fields
}

/** The document at `file` has `count` operations, and every one became a tool with no warning. */
function expectEveryOperationATool(loaded: Loaded, file: string, count: number): void {
  expect(operationCount(readJson(file))).toBe(count)
  expect(loaded.build.tools).toHaveLength(count)
  expect(loaded.build.skipped).toEqual([])
  expect(loaded.warnings).toEqual([])
}

describe("GitHub's REST API (@octokit/openapi 23.0.2, OpenAPI 3.0, 13 MB)", () => {
  let loaded: Loaded
  let operations: number

  beforeAll(async () => {
    // Vendored gzipped; loaded as the file a user has, from the path (the document loader reads it).
    const text = gunzipSync(readFileSync(join(CORPUS, 'github', 'api.github.com.json.gz'))).toString()
    const file = join(scratch, 'api.github.com.json')
    writeFileSync(file, text)
    operations = operationCount(JSON.parse(text) as { paths?: Record<string, Record<string, unknown>> })
    loaded = await load(file, '', { auth: { type: 'bearer', token: 'ghp_corpus' } })
  }, 300_000)

  it('makes 1,223 tools, one per operation, and skips none', () => {
    expect(operations).toBe(1223)
    expect(loaded.build.tools).toHaveLength(1223)
    expect(loaded.build.skipped).toEqual([])
    expect(loaded.warnings).toEqual([])
    expect(loaded.build.title).toBe("GitHub's official OpenAPI spec + Octokit extension")
  })

  it('path parameters: each value percent-encoded in its own segment, with the bearer token', async () => {
    const seen = await api.sent(loaded.client, 'repos_get', { owner: 'octo cat', repo: 'hello/world' })
    expect(seen.method).toBe('GET')
    expect(seen.url).toBe('/repos/octo%20cat/hello%2Fworld')
    expect(seen.headers.authorization).toBe('Bearer ghp_corpus')
    expect(seen.body).toBe('')
  })

  it('query parameters: only those given, as declared', async () => {
    const seen = await api.sent(loaded.client, 'repos_list-for-user', {
      username: 'octocat',
      type: 'member',
      per_page: 5,
    })
    expect(seen.method).toBe('GET')
    expect(target(seen)).toEqual({
      path: '/users/octocat/repos',
      query: [
        ['type', 'member'],
        ['per_page', '5'],
      ],
    })
  })

  it('a JSON body from flat arguments (its "body" property is the issue text, not the whole body)', async () => {
    const seen = await api.sent(loaded.client, 'issues_create', {
      owner: 'octocat',
      repo: 'hello-world',
      title: 'Found a bug',
      body: 'It broke',
      labels: ['bug'],
    })
    expect(seen.method).toBe('POST')
    expect(seen.url).toBe('/repos/octocat/hello-world/issues')
    expect(seen.headers['content-type']).toBe('application/json')
    expect(JSON.parse(seen.body)).toEqual({ title: 'Found a bug', body: 'It broke', labels: ['bug'] })
  })

  it('a text body (markdown/render-raw takes text/plain)', async () => {
    const seen = await api.sent(loaded.client, 'markdown_render-raw', { body: '# Hello' })
    expect(seen.method).toBe('POST')
    expect(seen.url).toBe('/markdown/raw')
    expect(seen.headers['content-type']).toBe('text/plain')
    expect(seen.body).toBe('# Hello')
  })
}, 300_000)

describe("Scalar's Galaxy (@scalar/galaxy, OpenAPI 3.1)", () => {
  const current = join(CORPUS, 'galaxy', '3.1.json')
  const reported = join(CORPUS, 'galaxy', '0.2.20', '3.1.json')
  let loaded: Loaded

  beforeAll(async () => {
    loaded = await load(current)
  })

  it('0.6.12: all 10 operations become tools, none skipped, and strict refuses none', async () => {
    expect(operationCount(readJson(current))).toBe(10)
    expect(loaded.build.tools.map((entry) => entry.tool.config.name)).toEqual([
      'getAllData',
      'createPlanet',
      'getPlanet',
      'updatePlanet',
      'deletePlanet',
      'uploadImage',
      'createCelestialBody',
      'createUser',
      'getToken',
      'getMe',
    ])
    expect(loaded.build.skipped).toEqual([])
    expect(loaded.warnings).toEqual([])
    expect(await fromOpenAPI(current, { baseUrl: api.url, strict: true })).toHaveLength(10)
  })

  it('0.2.20, the release reported refused: uploadImage loads, its 2020-12-invalid `examples` map left out', async () => {
    // The image property's `examples` is an object in this 3.1 document, where JSON Schema 2020-12 wants an
    // array: toolwire refused the whole document for it. The map is now left out, like `example`.
    const document = readJson(reported) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>
    }
    const schema = document.paths['/planets/{planetId}/image']?.post.requestBody.content[
      'multipart/form-data'
    ]?.schema as { properties: { image: { examples: unknown } } }
    expect(schema.properties.image.examples).toEqual({ mars: '@mars.jpg', jupiter: '@jupiter.png' })
    const warnings: OpenAPIWarning[] = []
    const build = await openAPITools(reported, {
      baseUrl: api.url,
      strict: true,
      onWarning: (warning) => warnings.push(warning),
    })
    expect(build.tools).toHaveLength(9)
    expect(warnings).toEqual([])
    const client = await servers.connect(build.tools.map((entry) => entry.tool))
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'uploadImage')
    expect(propertyOf(listed?.inputSchema, 'body')).toEqual({
      type: 'object',
      properties: { image: { type: 'string', description: 'The image file to upload' } },
      description: 'Image to upload',
    })
    const seen = await api.sent(client, 'uploadImage', { planetId: 3, body: { image: 'PNG bytes' } })
    expect(seen.url).toBe('/planets/3/image')
    expect(await multipartFields(seen)).toEqual([['image', 'PNG bytes']])
  })

  it('path parameter', async () => {
    const seen = await api.sent(loaded.client, 'getPlanet', { planetId: 7 })
    expect([seen.method, seen.url, seen.body]).toEqual(['GET', '/planets/7', ''])
  })

  it('query parameters', async () => {
    const seen = await api.sent(loaded.client, 'getAllData', { limit: 2, offset: 4 })
    expect(seen.method).toBe('GET')
    expect(target(seen)).toEqual({
      path: '/planets',
      query: [
        ['limit', '2'],
        ['offset', '4'],
      ],
    })
  })

  it('a JSON body from flat arguments (JSON chosen over the XML the operation also takes)', async () => {
    const seen = await api.sent(loaded.client, 'createPlanet', {
      name: 'Mars',
      type: 'terrestrial',
      physicalProperties: { mass: 0.107 },
    })
    expect([seen.method, seen.url, seen.headers['content-type']]).toEqual([
      'POST',
      '/planets',
      'application/json',
    ])
    expect(JSON.parse(seen.body)).toEqual({
      name: 'Mars',
      type: 'terrestrial',
      physicalProperties: { mass: 0.107 },
    })
  })

  it('a multipart body: its fields as the `body` argument, each a text part', async () => {
    const seen = await api.sent(loaded.client, 'uploadImage', { planetId: 1, body: { image: 'PNG bytes' } })
    expect([seen.method, seen.url]).toEqual(['POST', '/planets/1/image'])
    expect(await multipartFields(seen)).toEqual([['image', 'PNG bytes']])
  })
})

describe('Swagger 2.0 Petstore (@readme/oas-examples 8.2.2)', () => {
  const file = join(CORPUS, 'petstore-swagger2', 'petstore.json')
  let loaded: Loaded

  beforeAll(async () => {
    loaded = await load(file, '/v2')
  })

  it('makes 20 tools and skips none', () => {
    expectEveryOperationATool(loaded, file, 20)
  })

  it('path parameter, under the base URL path', async () => {
    const seen = await api.sent(loaded.client, 'getPetById', { petId: 5 })
    expect([seen.method, seen.url]).toEqual(['GET', '/v2/pet/5'])
  })

  it('a `multi` array query parameter: one pair per item', async () => {
    const seen = await api.sent(loaded.client, 'findPetsByStatus', { status: ['available', 'sold'] })
    expect(target(seen)).toEqual({
      path: '/v2/pet/findByStatus',
      query: [
        ['status', 'available'],
        ['status', 'sold'],
      ],
    })
  })

  it('an `in: body` parameter as flat arguments', async () => {
    const seen = await api.sent(loaded.client, 'addPet', {
      name: 'Tom',
      photoUrls: ['https://p/1.jpg'],
      status: 'sold',
    })
    expect([seen.method, seen.url, seen.headers['content-type']]).toEqual([
      'POST',
      '/v2/pet',
      'application/json',
    ])
    expect(JSON.parse(seen.body)).toEqual({ name: 'Tom', photoUrls: ['https://p/1.jpg'], status: 'sold' })
  })

  it('formData fields as an application/x-www-form-urlencoded body', async () => {
    const seen = await api.sent(loaded.client, 'updatePetWithForm', {
      petId: 5,
      name: 'Tom & Jerry',
      status: 'sold',
    })
    expect([seen.method, seen.url]).toEqual(['POST', '/v2/pet/5'])
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(seen.body).toBe('name=Tom+%26+Jerry&status=sold')
  })

  it('formData with a `type: file` field as a multipart body (the file given as text)', async () => {
    const seen = await api.sent(loaded.client, 'uploadFile', {
      petId: 5,
      additionalMetadata: 'front',
      file: 'JPEG bytes',
    })
    expect([seen.method, seen.url]).toEqual(['POST', '/v2/pet/5/uploadImage'])
    expect(await multipartFields(seen)).toEqual([
      ['additionalMetadata', 'front'],
      ['file', 'JPEG bytes'],
    ])
  })
})

describe('OpenAPI 3.0 Petstore (@readme/oas-examples 8.2.2): form and multipart request bodies', () => {
  const file = join(CORPUS, 'petstore-openapi3', 'petstore.json')
  let loaded: Loaded

  beforeAll(async () => {
    loaded = await load(file, '/v2')
  })

  it('makes 20 tools and skips none', () => {
    expectEveryOperationATool(loaded, file, 20)
  })

  it('an exploded array query parameter', async () => {
    const seen = await api.sent(loaded.client, 'findPetsByStatus', { status: ['pending', 'sold'] })
    expect(target(seen)).toEqual({
      path: '/v2/pet/findByStatus',
      query: [
        ['status', 'pending'],
        ['status', 'sold'],
      ],
    })
  })

  it('an application/x-www-form-urlencoded body from the `body` argument', async () => {
    const seen = await api.sent(loaded.client, 'updatePetWithForm', {
      petId: 9,
      body: { name: 'Tom', status: 'sold' },
    })
    expect([seen.method, seen.url]).toEqual(['POST', '/v2/pet/9'])
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(seen.body).toBe('name=Tom&status=sold')
  })

  it('a multipart/form-data body from the `body` argument', async () => {
    const seen = await api.sent(loaded.client, 'uploadFile', {
      petId: 9,
      body: { additionalMetadata: 'side', file: 'PNG bytes' },
    })
    expect([seen.method, seen.url]).toEqual(['POST', '/v2/pet/9/uploadImage'])
    expect(await multipartFields(seen)).toEqual([
      ['additionalMetadata', 'side'],
      ['file', 'PNG bytes'],
    ])
  })
})

describe('allOf, oneOf and anyOf bodies (@readme/oas-examples 8.2.2, polymorphism.json)', () => {
  const file = join(CORPUS, 'polymorphism', 'polymorphism.json')
  let loaded: Loaded

  beforeAll(async () => {
    loaded = await load(file)
  })

  it('makes 13 tools and skips none', () => {
    expectEveryOperationATool(loaded, file, 13)
  })

  it('an allOf of objects is flat arguments, merged back into one JSON body', async () => {
    const seen = await api.sent(loaded.client, 'post_anything_all-of-object', { a: 'one', d: 'four' })
    expect([seen.method, seen.url, seen.headers['content-type']]).toEqual([
      'POST',
      '/anything/all-of-object',
      'application/json',
    ])
    expect(JSON.parse(seen.body)).toEqual({ a: 'one', d: 'four' })
  })

  it('a oneOf body with a discriminator is the `body` argument, checked as anyOf, sent as given', async () => {
    // Cat and Dog are open objects: a cat matches both, so a plain oneOf would refuse every pet. The
    // discriminator (pet_type) picks the branch (OpenAPI 3.1 §Discriminator Object): published as anyOf.
    const listed = (await loaded.client.listTools()).tools.find((tool) => tool.name === 'patch_pets')
    expect(propertyOf(listed?.inputSchema, 'body')).toEqual({
      anyOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }],
    })
    const seen = await api.sent(loaded.client, 'patch_pets', {
      body: { pet_type: 'Cat', hunts: true, age: 3 },
    })
    expect([seen.method, seen.url]).toEqual(['PATCH', '/pets'])
    expect(JSON.parse(seen.body)).toEqual({ pet_type: 'Cat', hunts: true, age: 3 })
    const refused = await loaded.client.callTool('patch_pets', { body: { hunts: true } })
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.content)).toMatch(/pet_type/)
  })

  it('without a discriminator, an argument that matches two oneOf branches is refused, nothing sent', async () => {
    const before = api.seen.length
    // Both branches are open objects without required properties: {} matches each, so oneOf fails.
    const result = await loaded.client.callTool('post_anything_one-of-object', { body: {} })
    expect(result.isError).toBe(true)
    expect(api.seen).toHaveLength(before)
  })

  it('an anyOf of primitives is the `body` argument', async () => {
    const seen = await api.sent(loaded.client, 'post_anything_any-of-primitive', { body: 42 })
    expect(seen.headers['content-type']).toBe('application/json')
    expect(seen.body).toBe('42')
  })
})

describe("Netlify's API (@netlify/open-api 2.60.0, Swagger 2.0)", () => {
  const file = join(CORPUS, 'netlify', 'swagger.json')
  let loaded: Loaded

  beforeAll(async () => {
    loaded = await load(file, '/api/v1', { auth: { type: 'bearer', token: 'nf_corpus' } })
  })

  it('makes 181 tools and skips none', () => {
    expectEveryOperationATool(loaded, file, 181)
  })

  it('path parameter, with the bearer token', async () => {
    const seen = await api.sent(loaded.client, 'getSite', { site_id: 'a1b2' })
    expect([seen.method, seen.url, seen.headers.authorization]).toEqual([
      'GET',
      '/api/v1/sites/a1b2',
      'Bearer nf_corpus',
    ])
  })

  it('query parameters', async () => {
    const seen = await api.sent(loaded.client, 'listSites', { filter: 'owner', page: 2 })
    expect(target(seen)).toEqual({
      path: '/api/v1/sites',
      query: [
        ['filter', 'owner'],
        ['page', '2'],
      ],
    })
  })

  it('an `in: body` allOf schema as flat arguments beside a query parameter', async () => {
    const seen = await api.sent(loaded.client, 'createSite', {
      configure_dns: true,
      name: 'corpus-site',
      custom_domain: 'example.org',
    })
    expect(target(seen)).toEqual({ path: '/api/v1/sites', query: [['configure_dns', 'true']] })
    expect(seen.headers['content-type']).toBe('application/json')
    expect(JSON.parse(seen.body)).toEqual({ name: 'corpus-site', custom_domain: 'example.org' })
  })

  it('a multipart formData file beside query parameters', async () => {
    const seen = await api.sent(loaded.client, 'createSiteBuild', {
      site_id: 'a1b2',
      branch: 'main',
      zip: 'PK zip bytes',
    })
    expect(target(seen)).toEqual({ path: '/api/v1/sites/a1b2/builds', query: [['branch', 'main']] })
    expect(await multipartFields(seen)).toEqual([['zip', 'PK zip bytes']])
  })

  it('a raw application/octet-stream body', async () => {
    const seen = await api.sent(loaded.client, 'uploadDeployFunction', {
      deploy_id: 'd1',
      name: 'hello',
      runtime: 'js',
      body: 'function bytes',
    })
    expect([seen.method, seen.url]).toEqual(['PUT', '/api/v1/deploys/d1/functions/hello?runtime=js'])
    expect(seen.headers['content-type']).toBe('application/octet-stream')
    expect(seen.body).toBe('function bytes')
  })
})

describe("Figma's REST API (@figma/rest-api-spec 0.43.0, OpenAPI 3.1 in YAML)", () => {
  const file = join(CORPUS, 'figma', 'openapi.yaml')
  let loaded: Loaded
  const tooLarge = (name: string): string =>
    `Tool ${name} outputSchema: invalid JSON Schema: Schema expands to more than 20000 subschemas once its $refs are followed`

  beforeAll(async () => {
    loaded = await load(file)
  }, 120_000)

  it('makes 52 tools and skips the 2 whose answer schema expands past the bound, naming them', () => {
    expect(loaded.build.tools).toHaveLength(52)
    const skipped = [
      { operation: 'GET /v1/files/{file_key} (getFile)', reason: tooLarge('getFile') },
      { operation: 'GET /v1/files/{file_key}/nodes (getFileNodes)', reason: tooLarge('getFileNodes') },
    ]
    expect(loaded.build.skipped).toEqual(skipped)
    expect(loaded.warnings).toEqual(skipped.map((problem) => ({ ...problem, skipped: true })))
  })

  it('path and query parameters', async () => {
    const seen = await api.sent(loaded.client, 'getComments', { file_key: 'FiLeKeY', as_md: true })
    expect([seen.method, seen.url]).toEqual(['GET', '/v1/files/FiLeKeY/comments?as_md=true'])
  })

  it('a JSON body from flat arguments, a oneOf property kept whole', async () => {
    const seen = await api.sent(loaded.client, 'postComment', {
      file_key: 'FiLeKeY',
      message: 'Looks good',
      client_meta: { x: 10, y: 20 },
    })
    expect([seen.method, seen.url, seen.headers['content-type']]).toEqual([
      'POST',
      '/v1/files/FiLeKeY/comments',
      'application/json',
    ])
    expect(JSON.parse(seen.body)).toEqual({ message: 'Looks good', client_meta: { x: 10, y: 20 } })
  })
})
