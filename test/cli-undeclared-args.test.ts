/**
 * `toolwire call` with an argument name the tool's input schema does not declare: a warning on stderr with
 * the closest declared name, and the argument still sent (a real server over HTTP echoes what it received);
 * a schema with `additionalProperties: false` makes the server refuse the call, as before.
 */
import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closestName, editDistance, undeclaredArguments } from '../src/cli/client/undeclared.js'
import { defineServer, defineTool, jsonSchema } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { CLI } from './helpers/paths.js'

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function cli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

const echo = (args: unknown): string => JSON.stringify(args)
const numbers = { a: { type: 'number' }, b: { type: 'number' } } as const

const server = defineServer({
  name: 'calc',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'add',
      inputSchema: jsonSchema<Record<string, number>>({ type: 'object', properties: numbers }),
      handler: echo,
    }),
    defineTool({
      name: 'strict_add',
      inputSchema: jsonSchema<Record<string, number>>({
        type: 'object',
        properties: numbers,
        additionalProperties: false,
      }),
      handler: echo,
    }),
    defineTool({
      name: 'tally',
      inputSchema: jsonSchema<Record<string, number>>({
        type: 'object',
        properties: { total: { type: 'number' } },
        additionalProperties: { type: 'number' },
      }),
      handler: echo,
    }),
  ],
})

let running: RunningServer
beforeAll(async () => {
  running = await serveNode(server, { host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await running.close()
})

const warnings = (stderr: string): string[] =>
  stderr.split('\n').filter((line) => line.startsWith('warning:'))

describe('toolwire call with an undeclared argument name', { timeout: 60_000 }, () => {
  it('warns with the closest declared name and still sends it', async () => {
    const result = await cli(['call', running.url, 'add', 'a=1', 'bb=2', '--yes', '--json'])
    expect(warnings(result.stderr)).toEqual([
      "warning: argument 'bb' is not declared by add; did you mean 'b'?",
    ])
    expect(result.code).toBe(0)
    const sent = JSON.parse(result.stdout) as { content: { text: string }[] }
    expect(JSON.parse(sent.content[0]?.text ?? '')).toEqual({ a: 1, bb: '2' })
  })

  it('names the declared arguments when none is close, and sends it', async () => {
    const result = await cli(['call', running.url, 'add', 'a=1', 'b=2', 'c=3', '--yes', '--json'])
    expect(warnings(result.stderr)).toEqual([
      "warning: argument 'c' is not declared by add; it declares 'a', 'b'",
    ])
    expect(result.code).toBe(0)
    const sent = JSON.parse(result.stdout) as { content: { text: string }[] }
    expect(JSON.parse(sent.content[0]?.text ?? '')).toEqual({ a: 1, b: 2, c: '3' })
  })

  it('warns for --json-args names too, and says nothing when every name is declared', async () => {
    const misspelt = await cli([
      'call',
      running.url,
      'add',
      '--json-args',
      '{"A":1,"b":2}',
      '--yes',
      '--json',
    ])
    expect(warnings(misspelt.stderr)).toEqual([
      "warning: argument 'A' is not declared by add; did you mean 'a'?",
    ])
    const clean = await cli(['call', running.url, 'add', 'a=1', 'b=2', '--yes', '--json'])
    expect(clean.code).toBe(0)
    expect(warnings(clean.stderr)).toEqual([])
  })

  it('a schema without additional properties: the warning says so, and the server refuses', async () => {
    const result = await cli(['call', running.url, 'strict_add', 'a=1', 'bb=2', '--yes', '--json'])
    expect(warnings(result.stderr)).toEqual([
      "warning: argument 'bb' is not declared by strict_add (the schema allows no others, so the server will refuse it); did you mean 'b'?",
    ])
    expect(result.code).not.toBe(0)
    expect(result.stdout + result.stderr).toMatch(/bb/)
  })

  it('a schema that types any other name (a map) gets no warning', async () => {
    const result = await cli(['call', running.url, 'tally', 'total=3', 'apples=2', '--yes', '--json'])
    expect(result.code).toBe(0)
    expect(warnings(result.stderr)).toEqual([])
    // typed by additionalProperties, as a declared name is by its property
    const sent = JSON.parse(result.stdout) as { content: { text: string }[] }
    expect(JSON.parse(sent.content[0]?.text ?? '')).toEqual({ total: 3, apples: 2 })
  })
})

describe('the suggestion', () => {
  it('counts an adjacent transposition as one edit', () => {
    expect(editDistance('amount', 'amonut')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
  })

  it('suggests a slip, not an unrelated name', () => {
    expect(closestName('bb', ['a', 'b'])).toBe('b')
    expect(closestName('Query', ['query', 'limit'])).toBe('query')
    expect(closestName('limt', ['query', 'limit'])).toBe('limit')
    expect(closestName('c', ['a', 'b'])).toBeUndefined()
    expect(closestName('verbose', ['query', 'limit'])).toBeUndefined()
    // a hostile server's huge name is passed over without building its distance table
    expect(closestName('limt', ['x'.repeat(5_000_000), 'limit'])).toBe('limit')
  })

  it('a schema with no properties declared is not compared with', () => {
    expect(undeclaredArguments('free', { anything: 1 }, { type: 'object' })).toEqual([])
    expect(
      undeclaredArguments('p', { x_1: 1, y: 2 }, { type: 'object', patternProperties: { '^x_': {} } }),
    ).toEqual(["argument 'y' is not declared by p"])
  })
})
