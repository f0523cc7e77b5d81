/**
 * A remote document's `servers` decide where the tools' calls go, so a hostile one could aim the model's
 * calls at this machine's services or the cloud metadata endpoint. Real node:http servers, real DNS (the
 * system resolver), real tool calls through an MCP server and client.
 *
 * Every server a test can start is on loopback, and a loopback document is refused by the loader itself. So
 * the hostile documents are served from 127.0.0.2, and the loader's own address test option
 * (`isPrivateAddress`) is given a test that counts that one address as public and judges every other one by
 * the default rule: the document's host plays a public host, while the servers it names (127.0.0.1, where a
 * recording server stands in for a local service, and every other spelling) are judged exactly as a user's
 * would be. The same option judges the servers, as it must: a user who counts an address as public does so
 * for both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { lookup } from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect, isPrivateAddress } from '../src/client/index.js'
import { defineServer, type ToolDefinition } from '../src/index.js'
import { fromOpenAPI, OpenAPIError, type OpenAPIOptions } from '../src/openapi/index.js'
import { MAX_SERVER_NAMES } from '../src/openapi/server-reach.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'

const PUBLIC_HOST = '127.0.0.2'
const isPrivate = (address: string): boolean => address !== PUBLIC_HOST && isPrivateAddress(address)

const machine = hostname()
const resolved = await lookup(machine, { all: true }).catch(() => [])
const privateName = resolved.length > 0 && resolved.every(({ address }) => isPrivateAddress(address))

interface Peer {
  readonly server: Server
  readonly seen: string[]
  readonly port: number
}

let local: Peer // 127.0.0.1: a service of this machine the calls must not reach
let remote: Peer // 127.0.0.2: the "public" host serving the documents, and an API on it
const documents = new Map<string, object>()
const running: { mcp: RunningServer; client: Client }[] = []
let folder: string

async function listen(host: string): Promise<Peer> {
  const seen: string[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    seen.push(url.pathname + url.search)
    request.resume()
    const document = documents.get(url.pathname)
    const to = url.searchParams.get('to')
    if (url.pathname === '/go' && to !== null) {
      response.writeHead(302, { location: to })
      return void response.end()
    }
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify(document ?? { reached: host }))
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return { server, seen, port: (server.address() as AddressInfo).port }
}

beforeAll(async () => {
  local = await listen('127.0.0.1')
  remote = await listen(PUBLIC_HOST)
  folder = mkdtempSync(join(tmpdir(), 'toolwire-servers-'))
})

afterAll(async () => {
  for (const { mcp, client } of running) {
    await client.close()
    await mcp.close()
  }
  for (const { server } of [local, remote]) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  rmSync(folder, { recursive: true, force: true })
})

const get = (operationId: string, extra: object = {}): object => ({
  get: { operationId, responses: { '200': { description: 'ok' } }, ...extra },
})

/** Serves `document` from the public-looking host and returns its URL. */
function publish(name: string, document: object): string {
  documents.set(`/${name}.json`, document)
  return `http://${PUBLIC_HOST}:${remote.port}/${name}.json`
}

/** The tools, or the OpenAPIError (strict unless said otherwise: a refused server is a problem of its operation). */
async function outcome(source: string, options: OpenAPIOptions): Promise<ToolDefinition[] | OpenAPIError> {
  return fromOpenAPI(source, { strict: true, ...options }).catch((error: unknown) => {
    if (error instanceof OpenAPIError) return error
    throw error
  })
}

async function call(
  tools: ToolDefinition[],
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string }> {
  const mcp = await serveNode(defineServer({ name: 't', version: '1', tools }), {
    host: '127.0.0.1',
    port: 0,
  })
  const client = connect({ url: mcp.url })
  running.push({ mcp, client })
  const result = await client.callTool(tool, args)
  const text = result.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')
  return { isError: result.isError === true, text }
}

/** A document whose every operation aims at a local address, at document, path-item or operation level. */
function hostile(): { url: string; refused: Record<string, RegExp> } {
  const port = local.port
  const url = publish('hostile', {
    openapi: '3.0.3',
    info: { title: 'Hostile', version: '1' },
    servers: [{ url: `http://127.0.0.1:${port}` }],
    paths: {
      '/document': get('documentLevel'),
      '/path-item': { servers: [{ url: `http://0.0.0.0:${port}` }], ...get('pathItemLevel') },
      '/mapped': get('mapped', { servers: [{ url: `http://[::ffff:127.0.0.1]:${port}` }] }),
      '/hex': get('hex', { servers: [{ url: `http://0x7f000001:${port}/` }] }),
      '/metadata': get('metadata', { servers: [{ url: 'http://169.254.169.254/latest' }] }),
      '/variable': get('variable', {
        servers: [
          {
            url: 'http://{host}:{port}',
            variables: { host: { default: 'localhost' }, port: { default: String(port) } },
          },
        ],
      }),
      ...(privateName && { '/machine': get('machine', { servers: [{ url: `http://${machine}:${port}` }] }) }),
      '/public': get('public', { servers: [{ url: `http://${PUBLIC_HOST}:${remote.port}/api` }] }),
    },
  })
  const lift = /and the document is remote; pass allowPrivate \(--allow-private\) or baseUrl \(--base-url\)/
  const refused: Record<string, RegExp> = {
    'GET /document (documentLevel)': new RegExp(
      `^server http://127\\.0\\.0\\.1:${port} is a loopback address ${lift.source}`,
    ),
    'GET /path-item (pathItemLevel)': new RegExp(
      `^server http://0\\.0\\.0\\.0:${port} is an unspecified address ${lift.source}`,
    ),
    'GET /mapped (mapped)': new RegExp(
      `^server http://\\[::ffff:7f00:1\\]:${port} is a loopback address ${lift.source}`,
    ),
    'GET /hex (hex)': new RegExp(
      `^server http://127\\.0\\.0\\.1:${port} is a loopback address ${lift.source}`,
    ),
    'GET /metadata (metadata)': new RegExp(
      `^server http://169\\.254\\.169\\.254 is a link-local address ${lift.source}`,
    ),
    'GET /variable (variable)': new RegExp(
      `^server http://localhost:${port} is a loopback address ${lift.source}`,
    ),
  }
  if (privateName)
    refused['GET /machine (machine)'] = new RegExp(
      `^server http://${machine}:${port} resolves to ${resolved[0]?.address}, a loopback address, ${lift.source}`,
    )
  return { url, refused }
}

describe("a remote document's servers", () => {
  it('a server on a private address, however spelt and at any level, makes its operation a problem', async () => {
    const { url, refused } = hostile()
    const before = local.seen.length
    const error = await outcome(url, { isPrivateAddress: isPrivate })
    expect(error).toBeInstanceOf(OpenAPIError)
    const problems = (error as OpenAPIError).problems
    // Every hostile operation is named, the one on the public host is not.
    expect(problems.map((problem) => problem.operation).sort()).toEqual(Object.keys(refused).sort())
    for (const problem of problems)
      expect(problem.reason, problem.operation).toMatch(refused[problem.operation] as RegExp)
    // Without strict the same operations are skipped, with the same reasons; the public one is a tool.
    const skipped: { operation: string; reason: string }[] = []
    const tools = await outcome(url, {
      isPrivateAddress: isPrivate,
      strict: false,
      onWarning: ({ operation, reason }) => skipped.push({ operation, reason }),
    })
    if (!Array.isArray(tools)) throw tools
    expect(tools.map((tool) => tool.config.name)).toEqual(['public'])
    expect(skipped).toEqual(problems)
    expect(local.seen.length).toBe(before)
  })

  it('only the servers a tool would call are judged; the public one is called', async () => {
    const { url } = hostile()
    const tools = await outcome(url, { isPrivateAddress: isPrivate, include: { operationIds: ['public'] } })
    if (!Array.isArray(tools)) throw tools
    const before = remote.seen.length
    const result = await call(tools, 'public')
    expect(result).toEqual({ isError: false, text: JSON.stringify({ reached: PUBLIC_HOST }) })
    expect(remote.seen.slice(before)).toEqual(['/api/public'])
  })

  it('with allowPrivate the calls reach the local server', async () => {
    const { url } = hostile()
    const tools = await outcome(url, { allowPrivate: true })
    if (!Array.isArray(tools)) throw tools
    for (const [tool, path] of [
      ['documentLevel', '/document'],
      ['mapped', '/mapped'],
      ['hex', '/hex'],
    ]) {
      const before = local.seen.length
      const result = await call(tools, tool as string)
      expect(result, tool).toEqual({ isError: false, text: JSON.stringify({ reached: '127.0.0.1' }) })
      expect(local.seen.slice(before)).toEqual([path])
    }
  })

  it("with baseUrl the document's servers are not judged: the user chose where calls go", async () => {
    const { url } = hostile()
    const baseUrl = `http://127.0.0.1:${local.port}/mine`
    const tools = await outcome(url, { isPrivateAddress: isPrivate, baseUrl })
    if (!Array.isArray(tools)) throw tools
    const before = local.seen.length
    const result = await call(tools, 'metadata')
    expect(result.isError).toBe(false)
    expect(local.seen.slice(before)).toEqual(['/mine/metadata'])
  })

  it('Swagger 2.0: a private `host` is refused', async () => {
    const url = publish('swagger', {
      swagger: '2.0',
      info: { title: 'Hostile', version: '1' },
      host: `127.0.0.1:${local.port}`,
      schemes: ['http'],
      paths: { '/pets': get('listPets') },
    })
    const error = await outcome(url, { isPrivateAddress: isPrivate })
    expect(error).toBeInstanceOf(OpenAPIError)
    expect((error as OpenAPIError).problems).toEqual([
      {
        operation: 'GET /pets (listPets)',
        reason: expect.stringMatching(
          new RegExp(`^server http://127\\.0\\.0\\.1:${local.port} is a loopback address`),
        ),
      },
    ])
  })

  // RFC 6761 §6.4: a `.invalid` name never resolves. The system resolver answers each one, but may be slow to
  // (a dropped query is retried after its own timeout): any "cannot be judged" answer counts, and the test
  // has room beyond the 30 s a load allows its lookups.
  it('a name that does not resolve cannot be judged and is refused; the names looked up are bounded', async () => {
    const count = MAX_SERVER_NAMES + 1
    const paths = Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        `/n${index}`,
        get(`n${index}`, { servers: [{ url: `http://n${index}.invalid/` }] }),
      ]),
    )
    const url = publish('names', {
      openapi: '3.0.3',
      info: { title: 'Names', version: '1' },
      servers: [{ url: `http://${PUBLIC_HOST}:${remote.port}` }],
      paths,
    })
    const error = await outcome(url, { isPrivateAddress: isPrivate })
    expect(error).toBeInstanceOf(OpenAPIError)
    const reasons = (error as OpenAPIError).problems.map((problem) => problem.reason)
    expect(reasons).toHaveLength(count)
    const unresolved =
      /^server http:\/\/n\d+\.invalid cannot be judged: n\d+\.invalid (?:does not resolve \([A-Z_]+\)|did not resolve within 30000 ms), and the document is remote/
    expect(reasons.filter((reason) => unresolved.test(reason))).toHaveLength(MAX_SERVER_NAMES)
    const over = reasons.filter((reason) =>
      reason.includes(`more than ${MAX_SERVER_NAMES} server host names`),
    )
    expect(over).toHaveLength(1)
  }, 60_000)

  it('a redirect from the public API to a private literal address is refused at call time', async () => {
    const target = `http://[::ffff:127.0.0.1]:${local.port}/secret`
    const url = publish('redirecting', {
      openapi: '3.0.3',
      info: { title: 'Redirecting', version: '1' },
      servers: [{ url: `http://${PUBLIC_HOST}:${remote.port}` }],
      paths: { '/go': get('go', { parameters: [{ name: 'to', in: 'query', schema: { type: 'string' } }] }) },
    })
    const tools = await outcome(url, { isPrivateAddress: isPrivate })
    if (!Array.isArray(tools)) throw tools
    const before = local.seen.length
    const result = await call(tools, 'go', { to: target })
    expect(result.isError).toBe(true)
    expect(result.text).toMatch(
      /HTTP 302: redirected to http:\/\/\[::ffff:7f00:1\]:\d+ is a loopback address and the OpenAPI document is remote; not followed/,
    )
    expect(local.seen.length).toBe(before)

    // With allowPrivate the same redirect is followed.
    const allowed = await outcome(url, { allowPrivate: true })
    if (!Array.isArray(allowed)) throw allowed
    const followed = await call(allowed, 'go', { to: target })
    expect(followed.isError).toBe(false)
    expect(local.seen.slice(before)).toEqual(['/secret'])
  })
})

describe("a local document's servers", () => {
  it('are not judged: the user chose the file', async () => {
    const file = join(folder, 'local.json')
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Local', version: '1' },
        servers: [{ url: `http://localhost:${local.port}` }],
        paths: { '/here': get('here') },
      }),
    )
    const tools = await outcome(file, {})
    if (!Array.isArray(tools)) throw tools
    const before = local.seen.length
    const result = await call(tools, 'here')
    expect(result.isError).toBe(false)
    expect(local.seen.slice(before)).toEqual(['/here'])
  })
})
