/**
 * What fromOpenAPI loads from outside is untrusted input: the document and every `$ref` go through the one
 * document loader. Real swagger-parser, real node:http servers on loopback serving hostile documents (one on
 * 127.0.0.1, one on [::1]), real files in a temporary folder. Every loopback spelling is refused before a
 * byte is sent, a host name is judged by what DNS answers, a redirect into a private address is refused, a
 * remote document reads no file and no other origin, a local one no file outside its folder, and size, count
 * and time are bounded.
 */
import { randomUUID } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isPrivateAddress } from '../src/client/index.js'
import type { ToolDefinition } from '../src/index.js'
import { fromOpenAPI, OpenAPIError, type OpenAPIOptions } from '../src/openapi/index.js'

/** A valid document whose one operation's summary is `summary` (a `$ref` object to pull content into a tool). */
function documentWith(summary: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Hostile', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths: {
      '/pets': { get: { operationId: 'listPets', summary, responses: { '200': { description: 'ok' } } } },
    },
    ...extra,
  })
}

interface Peer {
  readonly server: Server
  readonly seen: string[]
  origin: string
}

// The machine's own name, as the system resolver answers it (/etc/hosts here); used when it is private.
const machine = hostname()
const resolved = await lookup(machine, { all: true }).catch(() => [])
const privateName = resolved.length > 0 && resolved.every(({ address }) => isPrivateAddress(address))

const SECRET_TXT = `SECRET-TXT-${randomUUID()}`
const SECRET_CREDENTIALS = `SECRET-CREDENTIALS-${randomUUID()}`
let folder: string
let secretTxt: string
let credentials: string
let a: Peer // 127.0.0.1
let b: Peer // [::1]

function answer(peer: Peer, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x')
  peer.seen.push(url.pathname + url.search)
  const json = (body: string): void => {
    response.setHeader('content-type', 'application/json')
    response.end(body)
  }
  if (url.pathname === '/plain.json') return json(documentWith('Plain'))
  // The target rides in the path, base64url: the parser picks its text parser by the URL's last extension.
  if (url.pathname.startsWith('/ref/'))
    return json(documentWith({ $ref: Buffer.from(url.pathname.slice(5, -5), 'base64url').toString() }))
  if (url.pathname === '/summary.json') return json('"a summary from the same origin"')
  if (url.pathname === '/redirect') {
    response.writeHead(302, { location: url.searchParams.get('to') ?? '/' })
    return void response.end()
  }
  if (url.pathname === '/many.json') {
    const count = Number(url.searchParams.get('n'))
    const schemas = Object.fromEntries(
      Array.from({ length: count }, (_, index) => [`S${index}`, { $ref: `/schema/${index}.json` }]),
    )
    return json(documentWith('Many', { components: { schemas } }))
  }
  if (url.pathname.startsWith('/schema/')) return json('{"type":"string"}')
  if (url.pathname === '/large.json') {
    // 17 MiB in chunks, without Content-Length: the bound is met while reading, not announced.
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    let sent = 0
    const more = (): void => {
      while (sent < 17) {
        sent++
        if (!response.write(chunk)) return void response.once('drain', more)
      }
      response.end()
    }
    response.write('{"openapi":"3.0.3",')
    return more()
  }
  if (url.pathname === '/hang') return // never answers: the load's deadline ends it
  response.statusCode = 404
  response.end()
}

async function listen(host: string): Promise<Peer> {
  const peer: Peer = { server: createServer(), seen: [], origin: '' }
  peer.server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    answer(peer, request, response),
  )
  await new Promise<void>((resolve) => peer.server.listen(0, host, resolve))
  const { port } = peer.server.address() as AddressInfo
  peer.origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  return peer
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolwire-loader-'))
  secretTxt = join(folder, 'secret.txt')
  credentials = join(folder, 'credentials')
  writeFileSync(secretTxt, SECRET_TXT)
  writeFileSync(credentials, SECRET_CREDENTIALS)
  a = await listen('127.0.0.1')
  b = await listen('::1')
})

afterAll(async () => {
  for (const peer of [a, b]) {
    peer.server.closeAllConnections()
    await new Promise((resolve) => peer.server.close(resolve))
  }
  rmSync(folder, { recursive: true, force: true })
})

/** The OpenAPIError a load fails with (any other outcome fails the test). */
async function refusal(document: string | object, options: OpenAPIOptions = {}): Promise<OpenAPIError> {
  const outcome: unknown = await fromOpenAPI(document, options).then(
    (tools) => tools,
    (error: unknown) => error,
  )
  if (!(outcome instanceof OpenAPIError))
    throw new Error(`expected an OpenAPIError, got ${describeOutcome(outcome)}`)
  return outcome
}

function describeOutcome(outcome: unknown): string {
  if (Array.isArray(outcome))
    return `tools ${JSON.stringify((outcome as ToolDefinition[]).map((tool) => tool.config))}`
  return outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : String(outcome)
}

/** Everything an error says, its causes included: where a leaked secret would show. */
function allText(error: unknown): string {
  const parts: string[] = []
  for (let current = error; current instanceof Error; current = current.cause) {
    parts.push(current.message, JSON.stringify(current))
  }
  return parts.join('\n')
}

/** A document on the 127.0.0.1 server whose operation summary is a `$ref` to `target`. */
const refTo = (target: string): string => `${a.origin}/ref/${Buffer.from(target).toString('base64url')}.json`

describe('addresses', () => {
  const spellings = (): [string, string, Peer][] => {
    const port = new URL(a.origin).port
    return [
      ['0.0.0.0 (unspecified)', `http://0.0.0.0:${port}/plain.json`, a],
      ['IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${port}/plain.json`, a],
      ['decimal IPv4', `http://2130706433:${port}/plain.json`, a],
      ['octal IPv4', `http://0177.0.0.1:${port}/plain.json`, a],
      ['hexadecimal IPv4', `http://0x7f000001:${port}/plain.json`, a],
      ['short IPv4 (127.1)', `http://127.1:${port}/plain.json`, a],
      ['127.0.0.1', `http://127.0.0.1:${port}/plain.json`, a],
      ['localhost', `http://localhost:${port}/plain.json`, a],
      ['IPv6 loopback', `${b.origin}/plain.json`, b],
      ['IPv6 link-local', `http://[fe80::1]:${port}/plain.json`, a],
      ['link-local IPv4 (cloud metadata)', `http://169.254.169.254:${port}/plain.json`, a],
    ]
  }

  it('every spelling of a loopback, unspecified or link-local address is refused before a request', async () => {
    for (const [name, url, peer] of spellings()) {
      const before = peer.seen.length
      const error = await refusal(url)
      expect(error.problems[0]?.reason, name).toMatch(
        /is (a loopback|an unspecified|a link-local) address; refusing/,
      )
      expect(peer.seen.length, `${name} reached the server`).toBe(before)
    }
  })

  it('allowPrivate loads from loopback (IPv4 and IPv6) on purpose', async () => {
    for (const origin of [a.origin, b.origin]) {
      const tools = await fromOpenAPI(`${origin}/plain.json`, { allowPrivate: true })
      expect(tools.map((tool) => tool.config.title)).toEqual(['Plain'])
    }
  })

  // The machine's own name, answered by the system resolver (/etc/hosts here): the name goes through
  // the socket's real lookup, and the address it answers is what is judged.
  it.skipIf(!privateName)(
    `a host name that resolves to a private address (${machine}) is refused at connect time`,
    async () => {
      const url = `http://${machine}:${new URL(a.origin).port}/plain.json`
      const before = a.seen.length
      const error = await refusal(url)
      expect(error.problems[0]?.reason).toContain(`${machine} (${resolved[0]?.address})`)
      expect(error.problems[0]?.reason).toMatch(/refusing to load/)
      expect(a.seen.length).toBe(before)
      // The same name reaches the server when the user allows it: the refusal came from the check.
      const tools = await fromOpenAPI(url, { allowPrivate: true })
      expect(tools).toHaveLength(1)
    },
  )

  // 127.0.0.1 counts as public in these tests, so the first hop is allowed and only the redirect is judged.
  const only127Public = (address: string): boolean => address !== '127.0.0.1' && isPrivateAddress(address)

  it('a redirect is followed hop by hop; one into a private address is refused', async () => {
    const same = `${a.origin}/redirect?to=${encodeURIComponent('/plain.json')}`
    const tools = await fromOpenAPI(same, { isPrivateAddress: only127Public })
    expect(tools.map((tool) => tool.config.title)).toEqual(['Plain'])

    const before = b.seen.length
    const into = `${a.origin}/redirect?to=${encodeURIComponent(`${b.origin}/plain.json`)}`
    const error = await refusal(into, { isPrivateAddress: only127Public })
    expect(error.problems[0]?.reason).toMatch(/^::1 is a loopback address; refusing/)
    expect(b.seen.length).toBe(before)
  })

  it('redirects are bounded', async () => {
    let url = `${a.origin}/plain.json`
    for (let hop = 0; hop < 6; hop++) url = `${a.origin}/redirect?to=${encodeURIComponent(url)}`
    const error = await refusal(url, { allowPrivate: true })
    expect(error.problems[0]?.reason).toMatch(/redirected more than 5 times/)
  })
})

describe('a remote document', () => {
  it('never reads a local file: a $ref to file: is refused and the secret appears nowhere', async () => {
    for (const file of [secretTxt, credentials]) {
      const target = pathToFileURL(file).href
      const error = await refusal(refTo(target), {
        allowPrivate: true,
      })
      expect(error.problems[0]?.reason).toMatch(/may not read local files/)
      const text = allText(error)
      expect(text).not.toContain(SECRET_TXT)
      expect(text).not.toContain(SECRET_CREDENTIALS)
    }
  })

  it("reads $refs on its own origin, and refuses another origin's", async () => {
    const same = refTo('/summary.json')
    const [tool] = await fromOpenAPI(same, { allowPrivate: true })
    expect(tool?.config.title).toBe('a summary from the same origin')

    const before = b.seen.length
    const other = refTo(`${b.origin}/plain.json#/info/title`)
    const error = await refusal(other, { allowPrivate: true })
    expect(error.problems[0]?.reason).toMatch(/stay on its own origin/)
    expect(b.seen.length).toBe(before)
  })

  it(`a document past the size bound (default 16 MiB) is refused while it is read`, async () => {
    const error = await refusal(`${a.origin}/large.json`, { allowPrivate: true })
    expect(error.problems[0]?.reason).toMatch(/large\.json is larger than 16777216 bytes/)
  })

  it('more $refs than the bound (default 256 resources) are refused; no more are fetched', async () => {
    const before = a.seen.length
    const error = await refusal(`${a.origin}/many.json?n=300`, { allowPrivate: true })
    expect(error.problems[0]?.reason).toMatch(
      /the document and its \$refs name more than 256 files or URLs \(maxResources\)/,
    )
    // The document and at most 255 of its $refs were requested (the parser may stop asking sooner).
    const fetched = a.seen.slice(before).filter((seen) => seen.startsWith('/schema/')).length
    expect(fetched).toBeLessThanOrEqual(255)
    // Under the bound, the same kind of document loads.
    const tools = await fromOpenAPI(`${a.origin}/many.json?n=20`, { allowPrivate: true })
    expect(tools).toHaveLength(1)
  })

  it('the bytes of one load together are bounded', async () => {
    const url = `${a.origin}/many.json?n=4`
    const documentBytes = (await (await fetch(url)).arrayBuffer()).byteLength
    // Room for the document and two of its 17-byte schemas, not all four.
    const documentLimits = { maxTotalBytes: documentBytes + 2 * 17 }
    const error = await refusal(url, { allowPrivate: true, documentLimits })
    expect(error.problems[0]?.reason).toMatch(/larger than \d+ bytes in all \(maxTotalBytes\)/)
    const tools = await fromOpenAPI(url, {
      allowPrivate: true,
      documentLimits: { maxTotalBytes: documentBytes + 4 * 17 },
    })
    expect(tools).toHaveLength(1)
  })

  it('the whole load is bounded in time', async () => {
    const error = await refusal(`${a.origin}/hang`, {
      allowPrivate: true,
      documentLimits: { timeoutMs: 300 },
    })
    expect(error.problems[0]?.reason).toMatch(/did not load within 300 ms/)
  })
})

describe('a local document', () => {
  let api: string
  beforeAll(() => {
    api = join(folder, 'api')
    mkdirSync(api)
    writeFileSync(join(api, 'part.json'), '"a summary from the same folder"')
    symlinkSync(secretTxt, join(api, 'link.txt'))
    const write = (name: string, summary: unknown): void =>
      writeFileSync(join(api, name), documentWith(summary))
    write('inside.json', { $ref: './part.json' })
    write('outside.json', { $ref: '../secret.txt' })
    write('absolute.json', { $ref: credentials })
    write('file-url.json', { $ref: pathToFileURL(credentials).href })
    write('link.json', { $ref: './link.txt' })
    write('remote.json', { $ref: `${a.origin}/summary.json` })
  })

  it('reads files under its own folder', async () => {
    const [tool] = await fromOpenAPI(join(api, 'inside.json'))
    expect(tool?.config.title).toBe('a summary from the same folder')
  })

  it('refuses a file outside its folder (relative, absolute, file: URL, or through a link)', async () => {
    for (const name of ['outside.json', 'absolute.json', 'file-url.json', 'link.json']) {
      const error = await refusal(join(api, name))
      expect(error.problems[0]?.reason, name).toMatch(/is outside the document's folder/)
      const text = allText(error)
      expect(text).not.toContain(SECRET_TXT)
      expect(text).not.toContain(SECRET_CREDENTIALS)
    }
  })

  it('reads a file outside its folder when the user allows it', async () => {
    const [tool] = await fromOpenAPI(join(api, 'outside.json'), { allowFilesOutside: true })
    expect(tool?.config.title).toBe(SECRET_TXT)
  })

  it('reaches no URL', async () => {
    const before = a.seen.length
    const error = await refusal(join(api, 'remote.json'), { allowPrivate: true })
    expect(error.problems[0]?.reason).toMatch(/from a local document is refused/)
    expect(a.seen.length).toBe(before)
  })

  it('a YAML alias bomb (2^40 paths in a few hundred bytes) is refused at once, not walked', async () => {
    const levels = Array.from(
      { length: 40 },
      (_, index) => `  a${index + 1}: &a${index + 1} [*a${index}, *a${index}]`,
    )
    const bomb = join(api, 'bomb.yaml')
    writeFileSync(
      bomb,
      ['openapi: 3.0.3', 'info: { title: Bomb, version: "1" }', 'x-bomb:', '  a0: &a0 [x]', ...levels]
        .concat(['x-part: { $ref: "./part.json" }', 'paths: {}', ''])
        .join('\n'),
    )
    const error = await refusal(bomb)
    expect(error.problems[0]?.reason).toMatch(/Excessive alias count/)
  })

  it('a file past the size bound is refused', async () => {
    const error = await refusal(join(api, 'inside.json'), { documentLimits: { maxBytes: 100 } })
    expect(error.problems[0]?.reason).toMatch(/inside\.json is larger than 100 bytes/)
  })
})
