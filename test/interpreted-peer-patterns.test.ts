/**
 * A client where code generation is refused (a Worker; here Node with `--disallow-code-generation-from-strings`)
 * checks a server's `outputSchema` with the interpreting validator. A server is untrusted
 * (basic/security_best_practices): its `pattern`s and `patternProperties` must run on RE2 there too, as on
 * the ajv path, or `^(a+)+$` against `aaaa…b` stalls the client for ever; and both paths must reach one verdict.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { defineServer, type Server } from '../src/index.js'
import { SchemaCompiler, SchemaError } from '../src/schema/json-schema.js'
import { type Live, live } from './helpers/live.js'
import { ROOT } from './helpers/paths.js'

const HOSTILE = '^(a+)+$'
/** Long enough that a backtracking engine would need far longer than the age of the universe. */
const STALLING = `${'a'.repeat(50_000)}b`

const HOSTILE_OUTPUT = {
  type: 'object',
  properties: { word: { type: 'string', pattern: HOSTILE } },
  patternProperties: { [HOSTILE]: { type: 'integer' } },
} as const

describe('peer patterns in the interpreting validator', () => {
  const interpreted = new SchemaCompiler({ untrusted: true, validator: 'interpreted' })
  const ajv = new SchemaCompiler({ untrusted: true, validator: 'ajv' })
  const values: unknown[] = [
    { word: 'aaa' },
    { word: 'aab' },
    { aaaa: 3 },
    { aaaa: 'x' },
    { ab: 'x' },
    { word: 'aaaaaaaaab' },
  ]
  for (const [index, value] of values.entries()) {
    it(`reaches the ajv path's verdict on value ${index}`, () => {
      const a = ajv.compile(HOSTILE_OUTPUT, 'out').validate(value)
      const b = interpreted.compile(HOSTILE_OUTPUT, 'out').validate(value)
      expect(b.ok).toBe(a.ok)
      // A failed pattern reads alike from both (other keywords keep each validator's own words).
      const patternLines = (outcome: typeof a) =>
        outcome.ok ? [] : outcome.issues.filter((line) => line.includes('match pattern'))
      expect(patternLines(b)).toEqual(patternLines(a))
    })
  }

  it('refuses a peer pattern RE2 cannot run, as the ajv path does', () => {
    const lookahead = { type: 'string', pattern: '^(?=a)a+$' }
    expect(() => ajv.compile(lookahead, 'out')).toThrow(SchemaError)
    expect(() => interpreted.compile(lookahead, 'out')).toThrow(SchemaError)
  })

  it('leaves RegExp as it was after validating', () => {
    const before = globalThis.RegExp
    interpreted.compile(HOSTILE_OUTPUT, 'out').validate({ word: 'b' })
    expect(globalThis.RegExp).toBe(before)
    expect(new RegExp(HOSTILE, 'u')).toBeInstanceOf(before)
  })
})

/** A server that answers any call with the structured content it is asked for, under a hostile outputSchema. */
function hostileServer(): Server {
  return defineServer({
    name: 'hostile',
    version: '1',
    features: [
      {
        methods: {
          'tools/list': {
            handler: () => ({
              resultType: 'complete',
              tools: [{ name: 'echo', inputSchema: { type: 'object' }, outputSchema: HOSTILE_OUTPUT }],
              ttlMs: 0,
              cacheScope: 'public',
            }),
          },
          'tools/call': {
            nameParam: 'name',
            handler: (ctx) => ({
              resultType: 'complete',
              content: [],
              structuredContent: (ctx.params.arguments as { value?: unknown }).value,
            }),
          },
        },
      },
    ],
  })
}

/** The client, from dist/, in a Node that refuses code generation; prints one verdict per call. */
const CLIENT = `
import { connect } from ${JSON.stringify(join(ROOT, 'dist', 'client', 'index.js'))}
let generated = true
try { new Function('return 1') } catch { generated = false }
const client = connect({ url: process.argv[1] })
await client.listTools()
const verdicts = []
for (const value of JSON.parse(process.argv[2])) {
  try {
    await client.callTool('echo', { value })
    verdicts.push('ok')
  } catch (error) {
    verdicts.push(error.name + ': ' + error.message.slice(0, 200))
  }
}
await client.close()
console.log(JSON.stringify({ generated, verdicts }))
`

function runClient(url: string, values: unknown[]): Promise<{ generated: boolean; verdicts: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--disallow-code-generation-from-strings',
        '--input-type=module',
        '-e',
        CLIENT,
        url,
        JSON.stringify(values),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    // A stalled match never ends on its own: the deadline is the test's, the verdict is the child's output.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (code) => {
      clearTimeout(deadline)
      if (code === 0) resolve(JSON.parse(out) as { generated: boolean; verdicts: string[] })
      else reject(new Error(`client exited with ${String(code)} (killed at the deadline if null): ${err}`))
    })
  })
}

describe('a client without code generation, against a hostile outputSchema', () => {
  const running: Live[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()))
  })

  it('refuses a stalling value through RE2 and accepts a matching one', { timeout: 90_000 }, async () => {
    const server = await live(hostileServer())
    running.push(server)
    const { generated, verdicts } = await runClient(server.url, [
      { word: STALLING },
      { word: 'aaaa' },
      { [STALLING]: 1 },
      { aaaa: 'x' },
    ])
    expect(generated).toBe(false)
    expect(verdicts).toHaveLength(4)
    expect(verdicts[0]).toMatch(/^InvalidResponseError: .*does not match the outputSchema.*word/)
    expect(verdicts[1]).toBe('ok')
    expect(verdicts[2]).toBe('ok') // a key that does not match the pattern: patternProperties do not apply
    expect(verdicts[3]).toMatch(/^InvalidResponseError: .*aaaa/)
  })
})
