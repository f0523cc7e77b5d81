/**
 * `"__proto__"`, `constructor` and `prototype` keys in tool arguments are data (server/tools §Error Handling:
 * argument problems are the tool's to report). Property: for generated schemas and argument objects holding
 * those keys at random depths, sent as raw JSON text over HTTP and over stdio, the server's verdict equals an
 * independent reading of the schema (a small oracle for the generated schema language, itself checked
 * against a fresh @cfworker/json-schema and, where the schema names no `__proto__`, a fresh ajv), the
 * handler receives exactly the keys sent, every object holding `__proto__` reaches it without a prototype,
 * a naive deep merge into what it received reaches nothing else, and `Object.prototype` never changes.
 *
 * Seeded per run; a failure prints the seed. Rerun one with PROTO_KEYS_SEED=<seed>.
 */
import { PassThrough } from 'node:stream'
import { Validator } from '@cfworker/json-schema'
import Ajv2020Module from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool, jsonSchema } from '../src/index.js'
import { serveStdio } from '../src/transports/stdio/index.js'
import { meta, standardHeaders } from './helpers/http.js'
import { live, type Live, textOf } from './helpers/live.js'
import { assertServerMessage } from './helpers/spec-schema.js'

const Ajv2020 = Ajv2020Module.default
const SEED = Number(process.env.PROTO_KEYS_SEED ?? Date.now() % 2 ** 31)

type Schema = Record<string, unknown>
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'polluted', 'a'] as const
const key = fc.constantFrom(...KEYS)
/** Built with Object.fromEntries, which defines properties: a "__proto__" entry stays an own key. */
const record = (entries: readonly (readonly [string, unknown])[]): Record<string, unknown> =>
  Object.fromEntries(entries)

const leaf = fc.constantFrom<Schema>({}, { type: 'number' }, { type: 'string' }, { type: 'object' })
const { objectSchema } = fc.letrec<{ sub: Schema; objectSchema: Schema }>((tie) => ({
  sub: fc.oneof({ depthSize: 'small' }, leaf, tie('objectSchema')),
  objectSchema: fc
    .record({
      properties: fc.uniqueArray(fc.tuple(key, tie('sub')), { maxLength: 3, selector: ([name]) => name }),
      required: fc.subarray([...KEYS], { maxLength: 2 }),
      additional: fc.constantFrom('absent', 'false', 'number', 'object'),
      nameLength: fc.option(fc.constantFrom(1, 9), { nil: undefined }),
    })
    .map(({ properties, required, additional, nameLength }) => {
      const schema: Schema = { type: 'object' }
      if (properties.length > 0) schema.properties = record(properties)
      if (required.length > 0) schema.required = required
      if (additional === 'false') schema.additionalProperties = false
      if (additional === 'number' || additional === 'object')
        schema.additionalProperties = { type: additional }
      if (nameLength !== undefined) schema.propertyNames = { maxLength: nameLength }
      return schema
    }),
}))

const { object } = fc.letrec<{ value: unknown; object: Record<string, unknown>; array: unknown[] }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom('s', '__proto__'),
      tie('object'),
      tie('array'),
    ),
    object: fc
      .uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: ([name]) => name })
      .map(record),
    array: fc.array(tie('value'), { maxLength: 3 }),
  }),
)

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** What the generated schema language means (JSON Schema 2020-12 §10.3.2, §6.5), read directly. */
function oracle(schema: Schema, v: unknown): boolean {
  if (schema.type === 'number') return typeof v === 'number'
  if (schema.type === 'string') return typeof v === 'string'
  if (schema.type !== 'object') return true
  if (!isRecord(v)) return false
  const properties = isRecord(schema.properties) ? schema.properties : undefined
  const required = (schema.required ?? []) as string[]
  if (!required.every((name) => Object.hasOwn(v, name))) return false
  const maxLength = (schema.propertyNames as { maxLength?: number } | undefined)?.maxLength
  for (const name of Object.keys(v)) {
    if (maxLength !== undefined && [...name].length > maxLength) return false
    const child = v[name]
    if (properties && Object.hasOwn(properties, name)) {
      if (!oracle(properties[name] as Schema, child)) return false
    } else if (schema.additionalProperties === false) return false
    else if (isRecord(schema.additionalProperties) && !oracle(schema.additionalProperties, child))
      return false
  }
  return true
}

/** Every object holding an own "__proto__" has no prototype; every other object keeps its usual one. */
function prototypesSafe(v: unknown): boolean {
  if (Array.isArray(v)) return Object.getPrototypeOf(v) === Array.prototype && v.every(prototypesSafe)
  if (!isRecord(v)) return true
  const expected = Object.hasOwn(v, '__proto__') ? null : Object.prototype
  return Object.getPrototypeOf(v) === expected && Object.keys(v).every((name) => prototypesSafe(v[name]))
}

/** The merge every prototype-pollution report starts from: reads `target[key]` and recurses into it. */
function naiveMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const name in source) {
    const from = source[name]
    const into = target[name]
    if (isRecord(from) && isRecord(into)) naiveMerge(into, from)
    else target[name] = from
  }
}

interface Report {
  json: string
  safe: boolean
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort()
function assertUnpolluted(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_KEYS)
  expect(Object.getPrototypeOf(Object.prototype)).toBeNull()
}

const server = defineServer({
  name: 'proto-keys',
  version: '1',
  tools: [
    defineTool({
      name: 'strict_zod',
      inputSchema: z.strictObject({ a: z.number().optional() }),
      handler: (args) => JSON.stringify(args),
    }),
    defineTool({
      name: 'loose_zod',
      inputSchema: z.looseObject({ a: z.number().optional() }),
      handler: (args) =>
        JSON.stringify({ keys: Object.keys(args), proto: Object.getPrototypeOf(args) === null }),
    }),
  ],
})
let http: Live
const stdin = new PassThrough()
const stdout = new PassThrough()
const lines = new Map<unknown, Record<string, unknown>>()
let stdio: { close(): Promise<void> | void } | undefined

beforeAll(async () => {
  http = await live(server)
  stdio = serveStdio(server, { input: stdin, output: stdout })
  let buffer = ''
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    let end: number
    while ((end = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>
      buffer = buffer.slice(end + 1)
      if ('id' in message) lines.set(message.id, message)
    }
  })
})
afterAll(async () => {
  stdin.end()
  await stdio?.close()
  await http.close()
})

/** A tools/call written as JSON text around the argument text, as a client's bytes would be. */
const callText = (id: number, name: string, argsText: string): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"_meta":${JSON.stringify(meta())},"name":${JSON.stringify(name)},"arguments":${argsText}}}`

let nextId = 1
async function overHttp(name: string, argsText: string): Promise<Record<string, unknown>> {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: standardHeaders('tools/call', { name }),
    body: callText(nextId++, name, argsText),
  })
  const message = (await response.json()) as Record<string, unknown>
  assertServerMessage(message, 'tools/call')
  return message
}

async function overStdio(name: string, argsText: string): Promise<Record<string, unknown>> {
  const id = nextId++
  stdin.write(`${callText(id, name, argsText)}\n`)
  await expect.poll(() => lines.has(id), { timeout: 10_000 }).toBe(true)
  const message = lines.get(id) as Record<string, unknown>
  lines.delete(id)
  assertServerMessage(message, 'tools/call')
  return message
}

describe('"__proto__" keys in arguments are data', () => {
  it('verdicts match an independent reading, handlers get the keys as data, nothing is polluted', async () => {
    let tool = 0
    await fc.assert(
      fc.asyncProperty(objectSchema, object, fc.boolean(), async (schema, args, viaStdio) => {
        const argsText = JSON.stringify(args)
        const sent = JSON.parse(argsText) as Record<string, unknown>
        const expected = oracle(schema, sent)
        // The references agree with the oracle (ajv where the schema names no "__proto__": it skips such
        // a property, which is why toolwire interprets those schemas).
        const schemaText = JSON.stringify(schema)
        const fresh = JSON.parse(schemaText) as Schema
        expect(new Validator(fresh, '2020-12', false).validate(JSON.parse(argsText)).valid).toBe(expected)
        if (!schemaText.includes('"__proto__"')) {
          const ajv = new Ajv2020({ strict: false, ownProperties: true })
          expect(ajv.compile(JSON.parse(schemaText) as Schema)(JSON.parse(argsText))).toBe(expected)
        }

        const name = `t${tool++}`
        server.tools.add(
          defineTool({
            name,
            // The schema as a peer would send it: JSON text parsed, so "__proto__" names are own keys.
            inputSchema: jsonSchema<Record<string, unknown>>(JSON.parse(schemaText) as Schema),
            handler: (received) => {
              const report: Report = { json: JSON.stringify(received), safe: prototypesSafe(received) }
              naiveMerge(received, JSON.parse(argsText) as Record<string, unknown>)
              return JSON.stringify(report)
            },
          }),
        )
        try {
          const message = await (viaStdio ? overStdio(name, argsText) : overHttp(name, argsText))
          expect(message.error).toBeUndefined()
          const result = message.result as Record<string, unknown>
          const text = textOf(result)
          if (!expected) {
            expect(result.isError).toBe(true)
            expect(text).toMatch(new RegExp(`^Invalid arguments for tool ${name}: `))
          } else {
            expect(result.isError).toBeUndefined()
            const report = JSON.parse(text) as Report
            expect(report.json).toBe(argsText)
            expect(report.safe).toBe(true)
          }
          assertUnpolluted()
        } finally {
          server.tools.remove(name)
        }
      }),
      { numRuns: 100, seed: SEED },
    )
  })

  it('checks a declared "__proto__" property like any other, and additionalProperties: false refuses it', async () => {
    const declared = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"number"}}}},"required":["__proto__"],"additionalProperties":false}',
    ) as Schema
    server.tools.add(
      defineTool({
        name: 'declared',
        inputSchema: jsonSchema<Record<string, unknown>>(declared),
        handler: (args) => `${Object.keys(args).join(',')} ${String(Object.getPrototypeOf(args))}`,
      }),
    )
    server.tools.add(
      defineTool({
        name: 'closed',
        inputSchema: jsonSchema({ type: 'object', properties: { a: {} }, additionalProperties: false }),
        handler: () => 'ran',
      }),
    )
    try {
      const ok = await overHttp('declared', '{"__proto__":{"polluted":1}}')
      expect(textOf(ok.result as Record<string, unknown>)).toBe('__proto__ null')
      const wrong = (await overStdio('declared', '{"__proto__":{"polluted":"yes"}}')).result as Record<
        string,
        unknown
      >
      expect(wrong.isError).toBe(true)
      expect(textOf(wrong)).toMatch(/^Invalid arguments for tool declared: __proto__\.polluted: /)
      const missing = (await overHttp('declared', '{}')).result as Record<string, unknown>
      expect(textOf(missing)).toMatch(/__proto__/)
      const closed = (await overHttp('closed', '{"__proto__":{}}')).result as Record<string, unknown>
      expect(closed.isError).toBe(true)
      expect(textOf(closed)).toMatch(/^Invalid arguments for tool closed: .*__proto__/)
      assertUnpolluted()
    } finally {
      server.tools.remove('declared')
      server.tools.remove('closed')
    }
  })

  it('zod schemas judge "__proto__" as zod does: a strict object refuses it, a loose one leaves it out', async () => {
    const strict = (await overHttp('strict_zod', '{"__proto__":{"polluted":1}}')).result as Record<
      string,
      unknown
    >
    expect(strict.isError).toBe(true)
    expect(textOf(strict)).toMatch(/^Invalid arguments for tool strict_zod: /)
    const loose = (await overStdio('loose_zod', '{"a":1,"__proto__":{"polluted":1}}')).result as Record<
      string,
      unknown
    >
    expect(JSON.parse(textOf(loose))).toEqual({ keys: ['a'], proto: false })
    assertUnpolluted()
  })
})
