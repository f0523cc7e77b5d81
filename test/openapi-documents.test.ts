/**
 * fromOpenAPI on real-world documents shipped in npm packages (ShipEngine's API from shipengine-openapi, in
 * YAML; the 2.0, 3.0 and 3.1 documents of @readme/oas-examples, among them ReadMe's own API), and on broken
 * documents: every operation of a good document becomes a tool the server accepts; a broken one fails with an
 * OpenAPIError that names the operation and the reason.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, describe, expect, it } from 'vitest'
import { defineServer } from '../src/index.js'
import { fromOpenAPI, OpenAPIError, type OpenAPIWarning } from '../src/openapi/index.js'
import { openAPITools } from '../src/openapi/from-openapi.js'

const require = createRequire(import.meta.url)
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** How many operations a document declares, counted independently of fromOpenAPI (read by the parser alone). */
async function operationCount(file: string): Promise<number> {
  const document = (await SwaggerParser.parse(file)) as { paths?: Record<string, Record<string, unknown>> }
  return Object.values(document.paths ?? {}).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => METHODS.has(key)).length,
    0,
  )
}

const shipengine = dirname(require.resolve('shipengine-openapi/package.json'))
const examples = dirname(require.resolve('@readme/oas-examples/package.json'))
const exampleFiles = ['2.0', '3.0', '3.1'].flatMap((version) =>
  readdirSync(join(examples, version, 'json'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(examples, version, 'json', name)),
)

describe('real-world documents', () => {
  it.each([
    ['ShipEngine API (shipengine-openapi, OpenAPI 3.0 in YAML)', join(shipengine, 'openapi.yaml')],
    ['ReadMe API (@readme/oas-examples, OpenAPI 3.1)', join(examples, '3.1/json/readme.json')],
    ['Train Travel API (@readme/oas-examples, OpenAPI 3.1)', join(examples, '3.1/json/train-travel.json')],
    ['USPTO Data Set API (@readme/oas-examples, OpenAPI 3.0)', join(examples, '3.0/json/uspto.json')],
    ['Petstore (@readme/oas-examples, Swagger 2.0)', join(examples, '2.0/json/petstore.json')],
  ])(
    '%s: every operation becomes a tool the server accepts',
    async (label, file) => {
      const started = performance.now()
      const build = await openAPITools(file, { baseUrl: 'https://api.example.com' })
      const tools = build.tools.map((entry) => entry.tool)
      const built = performance.now()
      const server = defineServer({ name: 'api', version: '1.0.0', tools })
      const defined = performance.now()
      console.log(
        `${label}: ${tools.length} tools, ${build.skipped.length} skipped, ${build.warnings.length} warnings; fromOpenAPI ${(built - started).toFixed(0)} ms, defineServer ${(defined - built).toFixed(0)} ms`,
      )
      expect(build.warnings).toEqual([])
      expect(tools).toHaveLength(await operationCount(file))
      expect(server.tools.size).toBe(tools.length)
    },
    180_000,
  )

  it(`each of the ${exampleFiles.length} documents of @readme/oas-examples becomes valid tools`, async () => {
    let loaded = 0
    for (const file of exampleFiles) {
      const tools = await fromOpenAPI(file, { baseUrl: 'https://api.example.com', strict: true })
      expect(tools.length, file).toBe(await operationCount(file))
      loaded += tools.length
      defineServer({ name: 'api', version: '1.0.0', tools })
    }
    console.log(`@readme/oas-examples: ${exampleFiles.length} documents, ${loaded} tools, none skipped`)
  }, 180_000)
})

const problemsOf = async (document: unknown): Promise<OpenAPIError> => {
  const error: unknown = await fromOpenAPI(document as object, {
    baseUrl: 'http://127.0.0.1:1',
    strict: true,
  }).catch((thrown: unknown) => thrown)
  expect(error).toBeInstanceOf(OpenAPIError)
  expect((error as OpenAPIError).errorCode).toBe('ERR_OPENAPI')
  return error as OpenAPIError
}

const doc = (paths: Record<string, unknown>, schemas: Record<string, unknown> = {}): object => ({
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths,
  components: { schemas },
})

const ok = { 200: { description: 'ok' } }

describe('documents that cannot become tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-openapi-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a $ref to nothing names its target', async () => {
    const error = await problemsOf(
      doc({
        '/pets': {
          post: {
            operationId: 'createPet',
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } },
            },
            responses: ok,
          },
        },
      }),
    )
    expect(error.message).toContain('#/components/schemas/Nope')
  })

  it('$refs into other files are resolved; a missing file is named', async () => {
    writeFileSync(
      join(dir, 'schemas.yaml'),
      'Pet:\n  type: object\n  properties:\n    name: { type: string }\n    kind: { $ref: "#/Kind" }\nKind:\n  type: string\n  enum: [cat, dog]\n',
    )
    const api = (schemaFile: string): string =>
      [
        'openapi: 3.1.0',
        'info: { title: t, version: "1" }',
        'paths:',
        '  /pets:',
        '    post:',
        '      operationId: createPet',
        '      requestBody:',
        '        content:',
        '          application/json:',
        `            schema: { $ref: "./${schemaFile}#/Pet" }`,
        '      responses: { "200": { description: ok } }',
      ].join('\n')
    writeFileSync(join(dir, 'api.yaml'), api('schemas.yaml'))
    const [tool] = await fromOpenAPI(join(dir, 'api.yaml'), { baseUrl: 'http://127.0.0.1:1' })
    const schema = JSON.stringify(tool?.config.inputSchema)
    expect(schema).toContain('"enum":["cat","dog"]')
    writeFileSync(join(dir, 'broken.yaml'), api('missing.yaml'))
    const error: unknown = await fromOpenAPI(join(dir, 'broken.yaml'), { strict: true }).catch(
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(OpenAPIError)
    expect((error as OpenAPIError).message).toContain('missing.yaml')
  })

  it('a recursive schema becomes a finite tool schema; a $ref loop that never reaches a schema is an error', async () => {
    const tree = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      },
    }
    const tools = await fromOpenAPI(
      doc(
        {
          '/tree': {
            put: {
              operationId: 'putTree',
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
              responses: ok,
            },
          },
        },
        { Node: tree },
      ),
      { baseUrl: 'http://127.0.0.1:1' },
    )
    const server = defineServer({ name: 't', version: '1', tools })
    expect(server.tools.size).toBe(1)
    const error = await problemsOf(
      doc(
        {
          '/loop': {
            post: {
              operationId: 'loop',
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } },
              },
              responses: ok,
            },
          },
        },
        { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
      ),
    )
    expect(error.problems).toEqual([
      { operation: 'POST /loop (loop)', reason: expect.stringContaining('circular') },
    ])
  })

  it('duplicate operationIds name both operations', async () => {
    const error = await problemsOf(
      doc({
        '/a': { get: { operationId: 'read', responses: ok } },
        '/b': { get: { operationId: 'read', responses: ok } },
      }),
    )
    expect(error.problems).toEqual([
      {
        operation: 'GET /b (read)',
        reason: expect.stringMatching(/operationId "read" is also the operationId of GET \/a/),
      },
    ])
  })

  it('names that collide once made to fit name both operations and the way out', async () => {
    const error = await problemsOf(
      doc({
        '/a': { get: { operationId: 'list pets', responses: ok } },
        '/b': { get: { operationId: 'list/pets', responses: ok } },
      }),
    )
    expect(error.problems).toEqual([
      {
        operation: 'GET /b (list/pets)',
        reason:
          'tool name "list_pets" is also the name of GET /a (list pets); give one another name with the rename option',
      },
    ])
    const renamed = await fromOpenAPI(
      doc({
        '/a': { get: { operationId: 'list pets', responses: ok } },
        '/b': { get: { operationId: 'list/pets', responses: ok } },
      }),
      { baseUrl: 'http://127.0.0.1:1', rename: { 'GET /b': 'list_more_pets' } },
    )
    expect(renamed.map((tool) => tool.config.name)).toEqual(['list_pets', 'list_more_pets'])
  })

  it('an operation without an operationId is named from its method and path; long names are cut to fit', async () => {
    const long = 'x'.repeat(300)
    const tools = await fromOpenAPI(
      doc({
        '/pets/{petId}/photos': {
          get: {
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
            responses: ok,
          },
        },
        '/long': { get: { operationId: long, responses: ok } },
      }),
      { baseUrl: 'http://127.0.0.1:1' },
    )
    const names = tools.map((tool) => tool.config.name)
    expect(names[0]).toBe('get_pets_petId_photos')
    expect(names[1]).toHaveLength(128)
  })

  it('a path parameter the operation does not declare, and a document that is not OpenAPI, are errors', async () => {
    const undeclared = await problemsOf(
      doc({ '/pets/{petId}': { get: { operationId: 'getPet', responses: ok } } }),
    )
    expect(undeclared.problems[0]).toEqual({
      operation: 'GET /pets/{petId} (getPet)',
      reason: 'path parameter {petId} is not declared',
    })
    const notOpenApi = await problemsOf({ hello: 'world' })
    expect(notOpenApi.problems[0]?.operation).toBe('document')
    const noFile = await problemsOf(join(dir, 'nothing-here.yaml'))
    expect(noFile.message).toContain('nothing-here.yaml')
  })
})

describe('documents with some operations that cannot become tools', () => {
  const good = (operationId: string): object => ({ get: { operationId, responses: ok } })
  const mixed = doc({
    '/a': good('first'),
    '/pets/{petId}': { get: { operationId: 'getPet', responses: ok } }, // {petId} is not declared
    '/b': good('second'),
    '/loop': {
      post: {
        operationId: 'loop',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } },
        responses: ok,
      },
    },
  })
  const loopDoc = {
    ...mixed,
    components: {
      schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
    },
  }

  it('skips each bad operation with a warning naming it and why; strict refuses the document', async () => {
    const warnings: OpenAPIWarning[] = []
    const tools = await fromOpenAPI(loopDoc, {
      baseUrl: 'http://127.0.0.1:1',
      onWarning: (warning) => warnings.push(warning),
    })
    expect(tools.map((tool) => tool.config.name)).toEqual(['first', 'second'])
    expect(warnings).toEqual([
      {
        operation: 'GET /pets/{petId} (getPet)',
        reason: 'path parameter {petId} is not declared',
        skipped: true,
      },
      { operation: 'POST /loop (loop)', reason: expect.stringContaining('circular $ref'), skipped: true },
    ])
    const build = await openAPITools(loopDoc, { baseUrl: 'http://127.0.0.1:1', onWarning: () => undefined })
    expect(build.skipped.map((problem) => problem.operation)).toEqual([
      'GET /pets/{petId} (getPet)',
      'POST /loop (loop)',
    ])
    const refused = await problemsOf(loopDoc)
    expect(refused.problems.map((problem) => problem.operation)).toEqual([
      'GET /pets/{petId} (getPet)',
      'POST /loop (loop)',
    ])
  })

  it('document-level problems still throw: not a document, no server URL without baseUrl', async () => {
    const quiet = { onWarning: () => undefined }
    await expect(fromOpenAPI({ hello: 'world' }, quiet)).rejects.toBeInstanceOf(OpenAPIError)
    const error: unknown = await fromOpenAPI(doc({ '/a': good('a') }), quiet).catch(
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(OpenAPIError)
    expect((error as OpenAPIError).problems).toEqual([
      {
        operation: 'document',
        reason: 'names no server URL: pass the baseUrl option (--base-url on the command line)',
      },
    ])
  })

  it('what real documents do: 3.0 `examples` maps, parameters given as $ref, x- extensions, no servers with baseUrl', async () => {
    const warnings: OpenAPIWarning[] = []
    const onWarning = (warning: OpenAPIWarning): number => warnings.push(warning)
    const swagger = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      host: 'api.example.com',
      parameters: {
        limit: { name: 'limit', in: 'query', type: 'integer' },
        petId: { name: 'petId', in: 'path', required: true, type: 'string' },
      },
      paths: {
        'x-internal': { note: 'an extension, not a path' },
        '/pets': {
          get: { operationId: 'listPets', parameters: { $ref: '#/parameters/limit' }, responses: ok },
        },
        '/pets/{petId}': {
          parameters: [{ $ref: '#/parameters/petId' }],
          get: { operationId: 'getPet', 'x-rate-limit': 5, responses: ok },
        },
      },
    }
    const tools = await fromOpenAPI(swagger, { onWarning })
    expect(tools.map((tool) => tool.config.name)).toEqual(['listPets', 'getPet'])
    expect((tools[0]?.config.inputSchema as { properties: object }).properties).toEqual({
      limit: { type: 'integer' },
    })
    expect((tools[1]?.config.inputSchema as { required: string[] }).required).toEqual(['petId'])
    const openapi30 = doc(
      {
        '/pets': {
          get: {
            operationId: 'listPets',
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
              },
            },
          },
        },
      },
      {
        Pet: {
          type: 'object',
          nullable: true,
          'x-go-type': 'Pet',
          examples: { cat: { value: { name: 'Tom' } } },
          properties: { name: { type: 'string', examples: ['Tom'] } },
        },
      },
    )
    const [listPets] = await fromOpenAPI(openapi30, {
      baseUrl: 'http://127.0.0.1:1',
      onWarning,
      strictResponses: true,
    })
    const output = listPets?.config.outputSchema as { properties: object; examples?: unknown }
    expect(output.examples).toBeUndefined()
    expect(output.properties).toEqual({ name: { type: 'string', examples: ['Tom'] } })
    expect(warnings).toEqual([])
  })

  it('duplicate and missing operationIds get stable unique names, each duplicate with a warning', async () => {
    const document = doc({
      '/a': good('read'),
      '/b': good('read'),
      '/c': { get: { responses: ok } },
      '/d': good('get_c'),
      '/e': good('list pets'),
      '/f': good('list/pets'),
    })
    const names = async (): Promise<{ names: string[]; warnings: OpenAPIWarning[] }> => {
      const warnings: OpenAPIWarning[] = []
      const tools = await fromOpenAPI(document, {
        baseUrl: 'http://127.0.0.1:1',
        onWarning: (warning) => warnings.push(warning),
      })
      return { names: tools.map((tool) => tool.config.name), warnings }
    }
    const first = await names()
    expect(first.names).toEqual(['read', 'get_b', 'get_c', 'get_c_2', 'list_pets', 'list_pets_2'])
    expect(new Set(first.names).size).toBe(first.names.length)
    expect(first.warnings).toEqual([
      {
        operation: 'GET /b (read)',
        reason:
          'operationId "read" is also the operationId of GET /a; operationIds must be unique: named from its method and path',
        skipped: false,
      },
      {
        operation: 'GET /d (get_c)',
        reason: 'tool name "get_c" is also the name of GET /c: named "get_c_2"',
        skipped: false,
      },
      {
        operation: 'GET /f (list/pets)',
        reason: 'tool name "list_pets" is also the name of GET /e (list pets): named "list_pets_2"',
        skipped: false,
      },
    ])
    expect((await names()).names).toEqual(first.names)
  })
})

describe('schemas a model can fill', () => {
  it('request schemas leave out readOnly properties, answers writeOnly ones; 3.0 nullable becomes a null type', async () => {
    const user = {
      type: 'object',
      required: ['id', 'name', 'password'],
      properties: {
        id: { type: 'integer', readOnly: true },
        name: { type: 'string', nullable: true, maxLength: 40 },
        password: { type: 'string', writeOnly: true },
        role: {
          type: 'string',
          enum: ['admin', 'user'],
          default: 'user',
          example: 'admin',
          'x-internal': true,
        },
      },
    }
    const [tool] = await fromOpenAPI(
      doc(
        {
          '/users': {
            post: {
              operationId: 'createUser',
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
              },
              responses: {
                201: {
                  description: 'made',
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
                },
              },
            },
          },
        },
        { User: user },
      ),
      { baseUrl: 'http://127.0.0.1:1', strictResponses: true },
    )
    // The JSON object body is flat: its properties are the tool's arguments (no `body`, no `$defs`).
    const input = tool?.config.inputSchema as Record<string, unknown>
    expect(input).toEqual({
      type: 'object',
      required: ['name', 'password'],
      properties: {
        name: { type: ['string', 'null'], maxLength: 40 },
        password: { type: 'string', writeOnly: true },
        role: { type: 'string', enum: ['admin', 'user'], default: 'user' },
      },
    })
    const output = tool?.config.outputSchema as Record<string, unknown>
    expect(output.required).toEqual(['id', 'name'])
    expect(Object.keys(output.properties as object)).toEqual(['id', 'name', 'role'])
  })
})
