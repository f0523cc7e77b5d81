/**
 * Verdicts ajv and the interpreting validator gave differently, or both gave wrongly, found by running the
 * official JSON Schema Test Suite (test/json-schema-suite.test.ts): each now gets the suite's verdict from the
 * server's two validators and the client's check of a server's output.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, jsonSchema } from '../src/index.js'
import { AJV_MODULES } from '../src/schema/ajv-static.js'
import { SchemaCompiler } from '../src/schema/json-schema.js'
import { meta, readAnswer, standardHeaders } from './helpers/http.js'

// The repository root is vitest's working directory.
const SUITE_REF = 'test/vendor/json-schema-test-suite/tests/draft2020-12/ref.json'

const compilers = () => ({
  ajv: new SchemaCompiler({ validator: 'ajv' }),
  interpreted: new SchemaCompiler({ validator: 'interpreted' }),
  client: new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }),
})

/** Each compiler's verdict on a value given as JSON text (so `toString` is an own key). */
function verdicts(schema: Record<string, unknown>, json: string): Record<string, boolean> {
  return Object.fromEntries(
    Object.entries(compilers()).map(([name, compiler]) => [
      name,
      compiler.compile(schema, 'schema').validate(JSON.parse(json)).ok,
    ]),
  )
}
const all = (verdict: boolean) => ({ ajv: verdict, interpreted: verdict, client: verdict })

describe('unevaluatedItems beside contains', () => {
  const schema = { type: 'array', contains: { type: 'number' }, unevaluatedItems: false }

  it('refuses an item contains did not match (ajv let it through)', () => {
    expect(verdicts(schema, '[1,"s",2]')).toEqual(all(false))
    expect(verdicts(schema, '["s"]')).toEqual(all(false))
  })

  it('accepts items contains matched', () => {
    expect(verdicts(schema, '[1,2,3]')).toEqual(all(true))
  })

  it('still refuses a schema ajv cannot resolve, when it is defined', () => {
    const broken = { ...schema, items: { $ref: '#/$defs/missing' } }
    expect(() => new SchemaCompiler({ validator: 'ajv' }).compile(broken, 'schema')).toThrow(/missing/)
  })
})

describe('unevaluatedProperties beside if/then/else', () => {
  const schema = {
    type: 'object',
    if: { properties: { kind: { const: 'a' } }, required: ['kind'] },
    then: { properties: { kind: true, a: { type: 'string' } } },
    else: { properties: { kind: true, b: { type: 'number' } } },
    unevaluatedProperties: false,
  }

  it('refuses an extra key named like an inherited property (ajv let toString and constructor through)', () => {
    expect(verdicts(schema, '{"kind":"a","toString":1}')).toEqual(all(false))
    expect(verdicts(schema, '{"kind":"z","constructor":{}}')).toEqual(all(false))
    expect(verdicts(schema, '{"kind":"a","hasOwnProperty":1}')).toEqual(all(false))
  })

  it('accepts the keys the branch taken evaluates', () => {
    expect(verdicts(schema, '{"kind":"a","a":"x"}')).toEqual(all(true))
    expect(verdicts(schema, '{"kind":"z","b":1}')).toEqual(all(true))
    expect(verdicts(schema, '{"kind":"z","a":"x"}')).toEqual(all(false))
  })
})

describe("draft-07 ignores a $ref's siblings", () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    definitions: { s: { type: 'string' } },
    type: 'object',
    properties: { v: { $ref: '#/definitions/s', maxLength: 3 } },
  }

  it('applies the reference only (the suite: "ref overrides any sibling keywords")', () => {
    expect(verdicts(schema, '{"v":"abcdef"}')).toEqual(all(true))
    expect(verdicts(schema, '{"v":7}')).toEqual(all(false))
  })

  it('keeps a root $ref beside the definitions it points into', () => {
    const root = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $ref: '#/definitions/o',
      definitions: { o: { type: 'object', required: ['a'] } },
    }
    expect(verdicts(root, '{"a":1}')).toEqual(all(true))
    expect(verdicts(root, '{}')).toEqual(all(false))
  })

  it('still applies siblings in 2019-09 and 2020-12', () => {
    const later = {
      ...schema,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: schema.definitions,
    }
    expect(verdicts(later, '{"v":"abcdef"}')).toEqual(all(false))
  })

  it('publishes the schema as written', async () => {
    const tool = defineTool({ name: 'd7', inputSchema: jsonSchema(schema), handler: () => 'ok' })
    const server = defineServer({ name: 's', version: '1', tools: [tool] })
    const client = connect(
      { url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(server) },
      { warn: () => undefined },
    )
    const listed = await client.listTools()
    expect(listed.tools[0]?.inputSchema).toEqual(schema)
    await expect(client.callTool('d7', { v: 'abcdef' })).resolves.toMatchObject({ content: [{ text: 'ok' }] })
  })
})

describe('$dynamicRef', () => {
  const schema = {
    $id: 'https://example.com/tree',
    $dynamicAnchor: 'node',
    type: 'object',
    properties: { n: { type: 'number' }, kids: { type: 'array', items: { $dynamicRef: '#node' } } },
  }

  it('is judged by ajv: an invalid nested value is refused (the interpreting validator accepted it)', () => {
    const ajv = new SchemaCompiler({ validator: 'ajv' }).compile(schema, 'schema')
    expect(ajv.validate({ n: 1, kids: [{ n: 'x' }] }).ok).toBe(false)
    expect(ajv.validate({ n: 1, kids: [{ n: 2, kids: [] }] }).ok).toBe(true)
  })

  it('is refused at definition where only the interpreting validator may run', () => {
    expect(() => new SchemaCompiler({ validator: 'interpreted' }).compile(schema, 'schema')).toThrow(
      /\$dynamicRef needs the ajv validator/,
    )
    const tool = defineTool({ name: 'tree', inputSchema: jsonSchema(schema), handler: () => 'ok' })
    expect(() =>
      defineServer({ name: 's', version: '1', tools: [tool], jsonSchemaValidator: 'interpreted' }),
    ).toThrow(/\$dynamicRef needs the ajv validator/)
  })
})

describe("nested $ids that overflow ajv's compiler", () => {
  // The suite's "refs with relative uris and defs".
  it('are checked by the interpreting validator instead of refused', () => {
    const groups = JSON.parse(readFileSync(SUITE_REF, 'utf8')) as {
      description: string
      schema: Record<string, unknown>
      tests: { data: unknown; valid: boolean }[]
    }[]
    const group = groups.find((candidate) => candidate.description === 'refs with relative uris and defs')
    const compiled = new SchemaCompiler({ validator: 'ajv' }).compile(group!.schema, 'schema')
    for (const test of group!.tests) expect(compiled.validate(test.data).ok).toBe(test.valid)
  })
})

describe('numbers JSON cannot carry', () => {
  it('refuses {"i": 1e400} as invalid arguments, a tool error the model sees; the handler never runs', async () => {
    const seen: unknown[] = []
    const tool = defineTool({
      name: 'count',
      inputSchema: jsonSchema<{ i: number }>({
        type: 'object',
        properties: { i: { type: 'integer' } },
        required: ['i'],
      }),
      handler: ({ i }) => {
        seen.push(i)
        return String(i)
      },
    })
    const handler = createFetchHandler(defineServer({ name: 's', version: '1', tools: [tool] }))
    const call = async (literal: string) => {
      const params = { name: 'count', arguments: { i: 0 }, _meta: meta() }
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }).replace(
        '"i":0',
        `"i":${literal}`,
      )
      const response = await handler(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: standardHeaders('tools/call', params),
          body,
        }),
      )
      return (await readAnswer(response, 'tools/call')).response?.result as Record<string, unknown>
    }
    for (const literal of ['1e400', '-1e400']) {
      const result = await call(literal)
      expect(result.isError).toBe(true)
      expect(JSON.stringify(result.content)).toMatch(
        /Invalid arguments for tool count: i: must be a finite number/,
      )
    }
    expect(seen).toEqual([])
    expect((await call('1e300')).isError).toBeUndefined() // the largest finite numbers still pass
    expect(seen).toEqual([1e300])
  })

  it('are refused by every validator and in output', () => {
    const schema = { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } }
    for (const compiler of Object.values(compilers())) {
      const compiled = compiler.compile(schema, 'schema')
      expect(compiled.validate({ a: [1, Number.NEGATIVE_INFINITY] })).toEqual({
        ok: false,
        issues: ['a.1: must be a finite number (JSON has no Infinity or NaN)'],
      })
      expect(compiled.validate({ a: [1, 2] }).ok).toBe(true)
    }
  })
})

describe('the client checks output schemas with anchors and dynamic references', () => {
  const outputSchema = {
    $id: 'https://example.com/listing',
    $dynamicAnchor: 'item',
    type: 'object',
    properties: {
      name: { $ref: '#label' },
      children: { type: 'array', items: { $dynamicRef: '#item' } },
    },
    required: ['name'],
    $defs: { label: { $anchor: 'label', type: 'string', maxLength: 20 } },
  }

  function setup(result: unknown) {
    const tool = defineTool({
      name: 'listing',
      outputSchema: jsonSchema(outputSchema),
      handler: () => result as Record<string, unknown>,
    })
    // The server checks its own results with ajv; the client gets them as sent.
    const server = defineServer({ name: 's', version: '1', tools: [tool] })
    return connect(
      { url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(server) },
      { warn: () => undefined },
    )
  }

  it('accepts a valid result from a toolwire server (it refused: "not a local reference")', async () => {
    const client = setup({ name: 'root', children: [{ name: 'a', children: [{ name: 'b' }] }] })
    await client.listTools()
    const result = await client.callTool('listing', {})
    expect(result.structuredContent).toEqual({
      name: 'root',
      children: [{ name: 'a', children: [{ name: 'b' }] }],
    })
  })

  it('refuses an invalid result through either reference', () => {
    const book = new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }).compile(
      outputSchema,
      'outputSchema',
    )
    expect(book.validate({ name: 'x'.repeat(21) }).ok).toBe(false)
    expect(book.validate({ name: 'root', children: [{ name: 7 }] }).ok).toBe(false)
    expect(book.validate({ name: 'root', children: [{ name: 'a' }] }).ok).toBe(true)
  })

  it('still refuses a reference that leaves the schema; pointers work as before', async () => {
    const remote = { ...outputSchema, properties: { name: { $ref: 'https://elsewhere.example/s.json' } } }
    expect(() =>
      new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }).compile(remote, 'outputSchema'),
    ).toThrow(/not a reference inside the schema/)
    const tool = defineTool({
      name: 'far',
      outputSchema: jsonSchema({
        type: 'object',
        properties: { n: { $ref: '#/$defs/n' } },
        $defs: { n: {} },
      }),
      handler: () => ({ n: 1 }),
    })
    const client = connect(
      {
        url: 'http://127.0.0.1/mcp',
        fetch: createFetchHandler(defineServer({ name: 's', version: '1', tools: [tool] })),
      },
      { warn: () => undefined },
    )
    await client.listTools()
    await expect(client.callTool('far', {})).resolves.toMatchObject({ structuredContent: { n: 1 } })
  })
})
