/**
 * Validators are built on first use and shared between identical schemas, ajv loads after a server's first
 * answers, and every schema error still surfaces when the server is defined.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { SchemaCompiler, SchemaError } from '../src/schema/json-schema.js'
import { defineServer, defineTool, jsonSchema } from '../src/index.js'
import { ROOT } from './helpers/paths.js'
import { commonJs } from '../src/wire/lazy-modules.js'

const TEXT = {
  type: 'object',
  properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
  required: ['text'],
  additionalProperties: false,
}

describe('schema compilation', () => {
  it('shares one validator between identical schemas', () => {
    const compiler = new SchemaCompiler()
    const first = compiler.compile(TEXT, 'one')
    const second = compiler.compile(structuredClone(TEXT), 'two')
    expect(second).toBe(first)
    expect(first.validate({ text: 'x' }).ok).toBe(true)
    expect(second.validate({ text: 1 })).toEqual({ ok: false, issues: ['text: must be string'] })
  })

  it('keeps schemas that differ apart', () => {
    const compiler = new SchemaCompiler()
    const loose = compiler.compile({ ...TEXT, additionalProperties: true }, 'loose')
    const strict = compiler.compile(TEXT, 'strict')
    expect(loose).not.toBe(strict)
    expect(loose.validate({ text: 'x', more: 1 }).ok).toBe(true)
    expect(strict.validate({ text: 'x', more: 1 }).ok).toBe(false)
  })

  const broken: [string, Record<string, unknown>, RegExp][] = [
    ['an unresolvable $ref', { type: 'object', $ref: '#/$defs/missing' }, /missing|resolve/],
    [
      'a pattern that can backtrack catastrophically',
      { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+(?=b)' } } },
      /backtrack/,
    ],
    [
      'such a pattern as a patternProperties key',
      { type: 'object', patternProperties: { '(x+)+(?!y)': { type: 'string' } } },
      /backtrack/,
    ],
    [
      'a draft-07 schema that breaks its meta-schema',
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'nope' },
      /type/,
    ],
    [
      'a 2020-12 schema that breaks its meta-schema',
      { type: 'object', properties: { a: { minimum: 'x' } } },
      /minimum/,
    ],
  ]
  it('with deferReferences, leaves compiling a schema with $refs to its first use, with the same verdicts', () => {
    const withRefs = {
      type: 'object',
      properties: {
        owner: { $ref: '#/$defs/user' },
        members: { type: 'array', items: { $ref: '#/$defs/user' } },
      },
      required: ['owner'],
      $defs: { user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] } },
    }
    const deferred = new SchemaCompiler({ deferReferences: true })
    // Not compiled by ajv at definition: an unresolvable $ref is no longer found there (fromOpenAPI's
    // converter writes every $ref it publishes into $defs itself).
    expect(() => deferred.compile({ type: 'object', $ref: '#/$defs/missing' }, 'later')).not.toThrow()
    // Every other definition-time check still runs (broken[0] is that unresolvable $ref).
    for (const [, schema] of broken.slice(1))
      expect(() => deferred.compile(schema, 'bad')).toThrow(SchemaError)
    const eager = new SchemaCompiler().compile(withRefs, 'eager')
    const lazy = deferred.compile(withRefs, 'lazy')
    for (const value of [
      { owner: { login: 'octocat' } },
      { owner: { login: 7 } },
      { owner: { login: 'a' }, members: [{ login: 'b' }, {}] },
      {},
    ])
      expect(lazy.validate(value)).toEqual(eager.validate(value))
  })

  for (const [what, schema, reason] of broken) {
    it(`refuses ${what} when the server is defined`, () => {
      const define = (): unknown =>
        defineServer({
          name: 't',
          version: '1',
          tools: [defineTool({ name: 'bad', inputSchema: jsonSchema(schema), handler: () => 'x' })],
        })
      expect(define).toThrow(reason)
      expect(() => new SchemaCompiler().compile(schema, 'bad')).toThrow(SchemaError)
    })
  }
})

/** A fresh Node process: what it loads depends on nothing another test loaded before. */
const SCRIPT = `
import { createRequire } from 'node:module'
import { createFetchHandler, defineServer, defineTool, jsonSchema } from 'toolwire'
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/ajv/dist/2020.js'))
const report = []
const tools = [defineTool({
  name: 'add',
  inputSchema: jsonSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false }),
  handler: ({ a, b }) => String(a + b),
})]
for (let i = 0; i < 1000; i++) tools.push(defineTool({ name: 'echo_' + i, inputSchema: jsonSchema(${JSON.stringify(TEXT)}), handler: ({ text }) => text }))
const server = defineServer({ name: 'lazy', version: '1', tools })
report.push({ step: 'defined', ajv: loaded() })
const handle = createFetchHandler(server, { clientAddress: () => '127.0.0.1' })
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }
const call = async (id, args) => {
  const response = await handle(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: args, _meta: meta } }) }))
  return (await response.json()).result
}
const first = await call(1, { a: 2, b: 3 })
report.push({ step: 'first call', text: first.content[0].text, isError: first.isError ?? false })
const wrong = await call(2, { a: 'two', b: 3 })
report.push({ step: 'invalid call', isError: wrong.isError, text: wrong.content[0].text })
const deadline = Date.now() + 20000
while (!loaded() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
report.push({ step: 'later', ajv: loaded(), text: (await call(3, { a: 1, b: 1 })).content[0].text })
console.log(JSON.stringify(report))
process.exit(0)
`

function runFresh(source: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))))
  })
}

describe('a CommonJS dependency loaded on demand', () => {
  it('comes through require where require reaches it, without importing it', async () => {
    let imported = false
    const formats = (await commonJs('ajv-formats/dist/formats.js', () => {
      imported = true
      return Promise.resolve(undefined)
    })) as { fullFormats?: Record<string, unknown> }
    expect(imported).toBe(false)
    expect(Object.keys(formats.fullFormats ?? {})).toContain('email')
  })

  it('is imported where require cannot reach it', async () => {
    const stand = { imported: true }
    expect(await commonJs('no-such-package-anywhere/x.js', () => Promise.resolve(stand))).toBe(stand)
  })
})

describe('a fresh server process', () => {
  it('answers before ajv loads, words rejections as ajv does, and moves to ajv afterwards', async () => {
    const report = JSON.parse(await runFresh(SCRIPT)) as Record<string, unknown>[]
    expect(report[0]).toEqual({ step: 'defined', ajv: false })
    expect(report[1]).toEqual({ step: 'first call', text: '5', isError: false })
    expect(report[2]).toMatchObject({ step: 'invalid call', isError: true })
    expect(String(report[2]?.text)).toContain('a: must be number')
    expect(report[3]).toEqual({ step: 'later', ajv: true, text: '2' })
  }, 70_000)
})
