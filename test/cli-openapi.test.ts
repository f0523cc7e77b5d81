/**
 * `toolwire openapi` and `toolwire serve --openapi` as a user runs them (built dist/cli/main.js, child
 * processes): the listing, and a call from the CLI through the served tools to a real HTTP API, over
 * Streamable HTTP and over stdio.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RecordingApi, recordingApi } from './helpers/openapi-api.js'
import { CLI, ROOT } from './helpers/paths.js'

const DOCUMENT = `
openapi: 3.0.3
info: { title: Pets, version: 2.1.0 }
servers: [{ url: "http://127.0.0.1:9/unused" }]
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Reads a pet
      parameters:
        - { name: petId, in: path, required: true, schema: { type: integer } }
        - { name: fields, in: query, schema: { type: array, items: { type: string } }, style: form, explode: false }
      responses:
        "200":
          description: the pet
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Pet" }
    delete:
      operationId: deletePet
      parameters: [{ name: petId, in: path, required: true, schema: { type: integer } }]
      responses: { "204": { description: gone } }
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties: { id: { type: integer }, name: { type: string }, fields: { type: string } }
`

function toolwire(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}

/** Petstore's createPet, whose JSON object body the tool takes as flat arguments. */
const CREATE = `
openapi: 3.0.3
info: { title: Pet shop, version: 1.0.0 }
paths:
  /pets:
    post:
      operationId: createPet
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: "#/components/schemas/NewPet" } } }
      responses: { "201": { description: made } }
components:
  schemas:
    NewPet:
      type: object
      required: [name]
      properties: { name: { type: string }, tag: { type: string } }
`

let api: RecordingApi
let apiUrl: string
let dir: string
let file: string

beforeAll(async () => {
  api = await recordingApi((request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://x')
    if (url.pathname === '/doc.yaml') return void response.end(DOCUMENT)
    response.setHeader('content-type', 'application/json')
    if (request.method === 'POST') {
      response.statusCode = 201
      return void response.end(JSON.stringify({ id: 1, ...(JSON.parse(body) as object) }))
    }
    const id = Number(url.pathname.split('/').at(-1))
    response.end(JSON.stringify({ id, name: `pet ${id}`, fields: url.searchParams.get('fields') ?? '' }))
  })
  apiUrl = `${api.url}/v1`
  dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-openapi-'))
  file = join(dir, 'api.yaml')
  writeFileSync(file, DOCUMENT)
  writeFileSync(join(dir, 'create.yaml'), CREATE)
})

afterAll(async () => {
  await api.close()
  rmSync(dir, { recursive: true, force: true })
})

// Each test starts the CLI up to six times, one after another: on a loaded machine a start takes seconds.
describe('toolwire openapi', { timeout: 90_000 }, () => {
  it('prints one line per tool: name, operation, hint, title', async () => {
    const result = await toolwire(['openapi', file])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^getPet\s+GET \/pets\/\{petId\}\s+read-only\s+Reads a pet$/m)
    expect(result.stdout).toMatch(/^deletePet\s+DELETE \/pets\/\{petId\}\s+destructive$/m)
    expect(result.stdout).toContain('2 tools from Pets, calling http://127.0.0.1:9/unused')
  })

  it('--json prints the definitions; --strict-responses publishes the documented output schemas', async () => {
    const result = await toolwire(['openapi', file, '--json', '--base-url', apiUrl])
    const tools = JSON.parse(result.stdout) as { name: string; outputSchema?: { required?: string[] } }[]
    expect(tools.map((tool) => tool.name)).toEqual(['getPet', 'deletePet'])
    expect(tools[0]?.outputSchema).toBeUndefined()
    const strict = await toolwire(['openapi', file, '--json', '--strict-responses'])
    const documented = JSON.parse(strict.stdout) as { outputSchema?: { required?: string[] } }[]
    expect(documented[0]?.outputSchema?.required).toEqual(['id', 'name'])
  })

  it('reads a URL by the same loader as serve --openapi: loopback only with --allow-private', async () => {
    const url = `${new URL(apiUrl).origin}/doc.yaml`
    const refused = await toolwire(['openapi', url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/127\.0\.0\.1 is a loopback address; refusing to load from it/)
    const listed = await toolwire(['openapi', url, '--allow-private'])
    expect(listed.stderr).toBe('')
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain('2 tools from Pets, calling http://127.0.0.1:9/unused')
  })

  it('an operation that cannot become a tool is listed as skipped; --strict exits 2 with the problems', async () => {
    const broken = join(dir, 'broken.yaml')
    writeFileSync(broken, DOCUMENT.replace('#/components/schemas/Pet', '#/components/schemas/Cat'))
    const result = await toolwire(['openapi', broken])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^deletePet\s+DELETE \/pets\/\{petId\}\s+destructive$/m)
    expect(result.stdout).toContain('1 tools from Pets')
    expect(result.stdout).toContain('1 operation skipped (--strict refuses the document instead):')
    expect(result.stdout).toMatch(
      /^ {2}GET \/pets\/\{petId\} \(getPet\): skipped: .*#\/components\/schemas\/Cat/m,
    )
    const refused = await toolwire(['openapi', broken, '--strict'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('#/components/schemas/Cat')
    const json = await toolwire(['openapi', broken, '--json'])
    expect((JSON.parse(json.stdout) as { name: string }[]).map((tool) => tool.name)).toEqual(['deletePet'])
    expect(json.stderr).toMatch(/^toolwire openapi: GET \/pets\/\{petId\} \(getPet\): skipped: /m)
  })

  it('--include, --exclude and --rename choose and name the tools', async () => {
    const tagged = join(dir, 'tagged.yaml')
    writeFileSync(
      tagged,
      DOCUMENT.replace('operationId: getPet', 'operationId: getPet\n      tags: [read]').replace(
        'operationId: deletePet',
        'operationId: deletePet\n      tags: [write]',
      ),
    )
    const names = async (...flags: string[]): Promise<string[]> => {
      const result = await toolwire(['openapi', tagged, '--json', ...flags])
      expect(result.code, result.stderr).toBe(0)
      return (JSON.parse(result.stdout) as { name: string }[]).map((tool) => tool.name)
    }
    expect(await names('--include', 'tag:read')).toEqual(['getPet'])
    expect(await names('--exclude', 'operationId:getPet')).toEqual(['deletePet'])
    expect(await names('--include', '/pets/*', '--exclude', 'tag:write')).toEqual(['getPet'])
    expect(await names('--include', 'path:/nothing/**')).toEqual([])
    expect(
      await names('--rename', 'getPet=pets_read', '--rename', 'DELETE /pets/{petId}=pets_remove'),
    ).toEqual(['pets_read', 'pets_remove'])
    const wrong = await toolwire(['openapi', tagged, '--include', 'colour:red'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--include expects tag:NAME, path:GLOB, operationId:ID or method:NAME')
  })
})

describe('toolwire serve --openapi', () => {
  const children: ChildProcess[] = []
  afterAll(async () => {
    for (const running of children) {
      if (running.exitCode !== null) continue
      await new Promise((resolve) => {
        running.once('exit', resolve)
        running.kill('SIGTERM')
      })
    }
  })

  /** Starts `serve --openapi <args…> --http 127.0.0.1:0` and returns its first stdout line, the banner. */
  async function serveOverHttp(args: readonly string[]): Promise<string> {
    const child = spawn(process.execPath, [CLI, 'serve', '--openapi', ...args, '--http', '127.0.0.1:0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000)
      createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer)
        resolve(line)
      })
    })
  }

  /** Runs `toolwire <clientArgs…> -- node main.js serve --openapi <document> --base-url <api> <serveArgs…> --stdio`. */
  const throughServe = (
    clientArgs: readonly string[],
    document: string,
    serveArgs: readonly string[] = [],
  ): ReturnType<typeof toolwire> =>
    toolwire([
      ...clientArgs,
      '--',
      process.execPath,
      CLI,
      'serve',
      '--openapi',
      document,
      '--base-url',
      apiUrl,
      ...serveArgs,
      '--stdio',
    ])

  it('serves the tools over HTTP; a call from the CLI reaches the API with the headers given', async () => {
    const banner = await serveOverHttp([file, '--base-url', apiUrl, '--header', 'X-Api-Key: k:1'])
    expect(banner).toMatch(/^Serving Pets on http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const url = banner.split(' on ')[1] as string
    const result = await toolwire([
      'call',
      url,
      'getPet',
      '--yes',
      '--json-args',
      '{"petId":7,"fields":["a","b"]}',
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('"name": "pet 7"')
    expect(api.seen.at(-1)?.url).toBe('/v1/pets/7?fields=a,b')
    expect(api.seen.at(-1)?.headers['x-api-key']).toBe('k:1')
  })

  it('a JSON object body is flat arguments: call … createPet name=Tom tag=cat sends that JSON body', async () => {
    const banner = await serveOverHttp([join(dir, 'create.yaml'), '--base-url', apiUrl])
    const url = banner.split(' on ')[1] as string
    const result = await toolwire(['call', url, 'createPet', 'name=Tom', 'tag=cat', '--yes'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('"name": "Tom"')
    const request = api.seen.at(-1)
    expect([request?.method, request?.url]).toEqual(['POST', '/v1/pets'])
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.body).toBe('{"name":"Tom","tag":"cat"}')
    // Without the required name the call is refused before the API sees it.
    const before = api.seen.length
    const missing = await toolwire(['call', url, 'createPet', 'tag=cat', '--yes'])
    expect(missing.code).not.toBe(0)
    expect(missing.stdout + missing.stderr).toMatch(/name/)
    expect(api.seen.length).toBe(before)
  })

  it('serves the tools over stdio', async () => {
    const result = await throughServe(['call', 'getPet', 'petId=3', '--yes'], file)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('"name": "pet 3"')
  })

  it('loads a document over http with --allow-private', async () => {
    const document = `${new URL(apiUrl).origin}/doc.yaml`
    const result = await throughServe(['call', 'getPet', 'petId=4', '--yes'], document, ['--allow-private'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('"name": "pet 4"')
  })

  it('prints skipped operations on stderr and honours --exclude and --rename', async () => {
    const broken = join(dir, 'serve-broken.yaml')
    writeFileSync(
      broken,
      DOCUMENT.replace('operationId: deletePet', 'operationId: deletePet\n      tags: [write]').replace(
        'paths:\n',
        'paths:\n  /bad/{id}:\n    get:\n      operationId: bad\n      responses: { "200": { description: ok } }\n',
      ),
    )
    const serveArgs = ['--exclude', 'tag:write', '--rename', 'getPet=read_pet']
    const result = await throughServe(['call', 'read_pet', 'petId=5', '--yes'], broken, serveArgs)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('"name": "pet 5"')
    expect(result.stderr).toContain(
      'toolwire openapi: GET /bad/{id} (bad): skipped: path parameter {id} is not declared',
    )
    const listed = await throughServe(['list', '--json'], broken, serveArgs)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('read_pet')
    expect(listed.stdout).not.toContain('deletePet')
    expect(listed.stdout).not.toContain('"bad"')
  })

  it('needs a module or --openapi', async () => {
    const result = await toolwire(['serve'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/missing required argument 'module' \(or --openapi <document>\)/)
  })
})
