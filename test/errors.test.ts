/**
 * One error vocabulary: every error class the package exports is a `ToolwireError` with its own stable
 * `errorCode`, the same class object from every entry (so `instanceof` holds across entries), and
 * docs/errors.md lists exactly these classes and codes.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { ErrorCode, McpError } from '../src/wire/index.js'
import { ROOT } from './helpers/paths.js'

type Target = { types: string; default: string }
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Target>
}
const entryModules = await Promise.all(
  Object.entries(pkg.exports)
    .filter((entry): entry is [string, Target] => typeof entry[1] !== 'string')
    .map(async ([subpath, target]) => ({
      subpath,
      module: (await import(join(ROOT, target.default))) as Record<string, unknown>,
    })),
)
const root = entryModules.find((entry) => entry.subpath === '.')?.module ?? {}
const client = entryModules.find((entry) => entry.subpath === './client')?.module ?? {}
const wire = entryModules.find((entry) => entry.subpath === './wire')?.module ?? {}
const Base = root.ToolwireError as abstract new (...args: never[]) => Error
/** A class object, whatever its constructor takes. */
type ErrorClass = abstract new (...args: never[]) => Error

/** Every exported class that is an Error, by class object (aliases collapse), with the names it goes by. */
function exportedErrorClasses(): Map<ErrorClass, Set<string>> {
  const classes = new Map<ErrorClass, Set<string>>()
  for (const { module } of entryModules) {
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error) || value === Base) continue
      const errorClass = value as ErrorClass
      classes.set(errorClass, (classes.get(errorClass) ?? new Set()).add(name))
    }
  }
  return classes
}

const errorCodeOf = (errorClass: ErrorClass): unknown =>
  Reflect.get(errorClass.prototype as object, 'errorCode')

/** The rows of docs/errors.md's error table: class name -> errorCode. */
function documentedTable(): Map<string, string> {
  const text = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8')
  const rows = new Map<string, string>()
  for (const match of text.matchAll(/^\|\s*`(\w+)`\s*\|\s*`(\w+)`\s*\|/gm)) {
    rows.set(match[1] as string, match[2] as string)
  }
  return rows
}

describe('error vocabulary', () => {
  it('every exported error class is a ToolwireError with its own stable errorCode', () => {
    const classes = exportedErrorClasses()
    expect(classes.size).toBeGreaterThanOrEqual(15)
    const codes = new Map<unknown, string>()
    for (const [errorClass, names] of classes) {
      const label = [...names].join('/')
      expect(errorClass.prototype, label).toBeInstanceOf(Base)
      const code = errorCodeOf(errorClass)
      expect(code, label).toMatch(/^ERR_[A-Z_]+$/)
      expect(codes.get(code), `${label} shares ${String(code)}`).toBeUndefined()
      codes.set(code, label)
    }
  })

  it('docs/errors.md lists every class and code, and nothing else', () => {
    const inCode = new Map<string, string>()
    for (const [errorClass] of exportedErrorClasses()) {
      inCode.set(errorClass.name, String(errorCodeOf(errorClass)))
    }
    const documented = documentedTable()
    expect(Object.fromEntries([...documented].sort())).toEqual(Object.fromEntries([...inCode].sort()))
  })

  it('the ToolwireErrorCode type names exactly the codes the classes carry', () => {
    const declaration = readFileSync(join(ROOT, 'dist/wire/toolwire-error.d.ts'), 'utf8')
    const union = /type ToolwireErrorCode =([^;]*);/.exec(declaration)?.[1] ?? ''
    const typed = [...union.matchAll(/'(ERR_[A-Z_]+)'/g)].map((match) => match[1]).sort()
    const carried = [...exportedErrorClasses().keys()].map((errorClass) => errorCodeOf(errorClass)).sort()
    expect(typed).toEqual(carried)
  })

  it('a JSON-RPC error has one class on both sides; ProtocolError is its deprecated alias', async () => {
    expect(client.McpError).toBe(root.McpError)
    expect(wire.McpError).toBe(root.McpError)
    expect(client.ProtocolError).toBe(root.McpError)
    expect(client.ToolwireError).toBe(Base)
    expect(wire.ToolwireError).toBe(Base)
    const McpError = root.McpError as new (code: number, message: string) => Error & { code: number }
    const error = new McpError(-32602, 'bad')
    expect(error).toBeInstanceOf(client.ProtocolError as ErrorClass)
    expect(error).toBeInstanceOf(Base)
    expect(error.code).toBe(-32602)
    expect(Reflect.get(error, 'errorCode')).toBe('ERR_MCP')
    const { UrlElicitationRequiredError } = client as {
      UrlElicitationRequiredError: new (message: string, data: unknown) => Error
    }
    const elicitation = new UrlElicitationRequiredError('visit', { elicitations: [] })
    expect(elicitation).toBeInstanceOf(McpError)
    expect(Reflect.get(elicitation, 'errorCode')).toBe('ERR_URL_ELICITATION_REQUIRED')
  })

  it('the built entries share one copy of each class (no chunk duplicates one)', () => {
    const { UriTemplateError } = root as { UriTemplateError: new (message: string) => Error }
    const compile = root.compileUriTemplate as (template: string) => unknown
    expect(() => compile('{broken')).toThrow(UriTemplateError)
    let thrown: unknown
    try {
      compile('')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(Base)
    expect(Reflect.get(thrown as object, 'errorCode')).toBe('ERR_URI_TEMPLATE')
  })
})

describe('a server passing on errors', () => {
  // McpError is one class on both sides; the server must still tell an error it made to answer with from one
  // its tool received from another server (which is an unexpected failure, shown per errorExposure).
  const upstream = defineServer({
    name: 'upstream',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'secret',
        handler: () => {
          throw new McpError(ErrorCode.InvalidParams, 'upstream detail: db at 10.0.0.7')
        },
      }),
    ],
  })
  const upstreamFetch = createFetchHandler(upstream)
  const proxy = defineServer({
    name: 'proxy',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'forward',
        handler: async () => {
          const client = connect({ url: 'http://upstream.test/mcp', fetch: upstreamFetch })
          try {
            return await client.callTool('secret', {})
          } finally {
            await client.close()
          }
        },
      }),
      defineTool({
        name: 'own',
        handler: () => {
          throw new McpError(ErrorCode.InvalidParams, 'own message')
        },
      }),
    ],
    logger: { error: () => {}, warn: () => {} },
  })
  const client = connect({ url: 'http://proxy.test/mcp', fetch: createFetchHandler(proxy) })

  it('passes on an McpError it throws itself as the JSON-RPC error', async () => {
    const error: unknown = await client.callTool('own', {}).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(McpError)
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: 'own message' })
  })

  it('treats an McpError received from another server as an unexpected failure', async () => {
    const result = await client.callTool('forward', {})
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result)).not.toContain('10.0.0.7')
    expect(JSON.stringify(result)).toMatch(/failed unexpectedly \(ref /)
  })
})
