/** Definition-time checks: a bad tool fails when the server is defined, with a message naming tool and rule. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool, ToolDefinitionError } from '../src/index.js'

const serverWith = (tool: ReturnType<typeof defineTool>, more: ReturnType<typeof defineTool>[] = []) =>
  defineServer({ name: 't', version: '1', tools: [tool, ...more] })
const withSchema = (inputSchema: Record<string, unknown>) =>
  defineTool({ name: 'x', inputSchema, handler: () => '' })

describe('tool names', () => {
  it('accepts the spec examples', () => {
    for (const name of ['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a-b']) {
      expect(() => serverWith(defineTool({ name, handler: () => '' }))).not.toThrow()
    }
  })

  it('rejects empty, long, spaced and special-character names', () => {
    for (const name of ['', 'a'.repeat(129), 'my tool', 'a,b', 'naïve', 'x/y']) {
      expect(() => serverWith(defineTool({ name, handler: () => '' }))).toThrow(ToolDefinitionError)
    }
  })

  it('rejects duplicates', () => {
    const a = defineTool({ name: 'dup', handler: () => '' })
    expect(() => serverWith(a, [a])).toThrow(/Duplicate tool name dup/)
  })
})

describe('schemas', () => {
  it('requires root type object', () => {
    expect(() => serverWith(withSchema({ type: 'array' }))).toThrow(/root type "object"/)
  })

  it('rejects invalid schemas and unsupported dialects', () => {
    expect(() => serverWith(withSchema({ type: 'object', properties: { a: { type: 'nope' } } }))).toThrow(
      /Tool x inputSchema: invalid JSON Schema/,
    )
    expect(() =>
      serverWith(withSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })),
    ).toThrow(/Unsupported JSON Schema dialect/)
  })

  it('never fetches a network $ref: it fails at definition time', () => {
    expect(() =>
      serverWith(
        withSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }),
      ),
    ).toThrow(/can't resolve reference|invalid JSON Schema/)
  })

  it('bounds schema size and depth', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { n: deep } }
    expect(() => serverWith(withSchema(deep))).toThrow(/nested deeper/)
  })

  it('honours draft-07 when $schema says so', () => {
    const server = serverWith(
      withSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { n: { type: 'number' } },
        properties: { a: { $ref: '#/definitions/n' } },
      }),
    )
    expect(server.tools.get('x')?.input.dialect).toBe('draft-07')
  })

  it('publishes zod schemas as JSON Schema 2020-12', () => {
    const server = serverWith(
      defineTool({ name: 'z', inputSchema: z.object({ a: z.string().describe('A') }), handler: () => '' }),
    )
    expect(server.tools.get('z')?.wire.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'string', description: 'A' } },
    })
  })

  it('gives a tool without inputSchema the recommended empty-object schema', () => {
    const server = serverWith(defineTool({ name: 'n', handler: () => '' }))
    expect(server.tools.get('n')?.wire.inputSchema).toEqual({ type: 'object', additionalProperties: false })
  })
})

describe('x-mcp-header rules', () => {
  const header = (property: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    withSchema({ type: 'object', properties: { p: property, ...extra } })

  it('accepts string, integer, boolean, nullable and nested-properties annotations', () => {
    for (const schema of [
      header({ type: 'string', 'x-mcp-header': 'Region' }),
      header({ type: 'integer', 'x-mcp-header': 'Limit' }),
      header({ type: 'boolean', 'x-mcp-header': 'Dry' }),
      header({ type: ['string', 'null'], 'x-mcp-header': 'Maybe' }),
      header({ type: 'object', properties: { q: { type: 'string', 'x-mcp-header': 'Nested' } } }),
      header({ type: 'string', 'x-mcp-header': 'Method' }),
    ]) {
      expect(() => serverWith(schema)).not.toThrow()
    }
  })

  it.each([
    ['empty', { type: 'string', 'x-mcp-header': '' }, /non-empty/],
    ['space', { type: 'string', 'x-mcp-header': 'My Region' }, /token/],
    ['colon', { type: 'string', 'x-mcp-header': 'Region:Primary' }, /token/],
    ['non-ASCII', { type: 'string', 'x-mcp-header': 'Région' }, /token/],
    ['control', { type: 'string', 'x-mcp-header': 'Region\t1' }, /token/],
    ['number', { type: 'number', 'x-mcp-header': 'N' }, /type 'number'/],
    ['array', { type: 'array', 'x-mcp-header': 'A' }, /type 'array'/],
    ['object', { type: 'object', 'x-mcp-header': 'O' }, /type 'object'/],
    ['null', { type: 'null', 'x-mcp-header': 'Z' }, /type 'null'/],
    ['no type', { 'x-mcp-header': 'T' }, /no type/],
    ['not a string', { type: 'string', 'x-mcp-header': 5 }, /non-empty string/],
  ])('rejects %s', (_label, property, reason) => {
    expect(() => serverWith(header(property))).toThrow(reason)
    expect(() => serverWith(header(property))).toThrow(/^Tool x: /)
  })

  it('rejects case-insensitive duplicates', () => {
    expect(() =>
      serverWith(
        header(
          { type: 'string', 'x-mcp-header': 'Region' },
          { q: { type: 'string', 'x-mcp-header': 'REGION' } },
        ),
      ),
    ).toThrow(/duplicates/)
  })

  it.each([
    [
      'items',
      {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'I' } } },
      },
    ],
    ['oneOf', { type: 'object', oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'O' } } }] }],
    ['$defs', { type: 'object', $defs: { d: { type: 'string', 'x-mcp-header': 'D' } } }],
    ['if', { type: 'object', if: { properties: { a: { type: 'string', 'x-mcp-header': 'F' } } } }],
    ['root', { type: 'object', 'x-mcp-header': 'Root' }],
  ])('rejects annotations not statically reachable (%s)', (_label, schema) => {
    expect(() => serverWith(withSchema(schema))).toThrow(/not on a property reachable/)
  })
})
