/**
 * The package's entry points: every subpath in package.json loads and exports something, and the entries meant
 * for any runtime (root, client, wire) reach no `node:*` module through their whole import graph.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'

type Target = { types: string; default: string }
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Target>
}
const entries = Object.entries(pkg.exports).filter(
  (entry): entry is [string, Target] => typeof entry[1] !== 'string',
)

/** The source file a built entry comes from: dist/x/y.js -> src/x/y.ts. */
const sourceOf = (target: Target): string =>
  join(ROOT, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))

function importGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  for (const match of text.matchAll(
    // Type-only imports are erased from the built module, so they load nothing.
    /^(?:import|export)\s(?!type\s)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm,
  )) {
    const spec = match[1] ?? match[2] ?? ''
    if (spec.startsWith('.')) importGraph(join(dirname(file), spec.replace(/\.js$/, '.ts')), seen)
    else seen.add(spec)
  }
  return seen
}

const NODE_BUILTINS = new Set([
  'fs',
  'http',
  'https',
  'net',
  'path',
  'child_process',
  'crypto',
  'os',
  'stream',
])
const nodeImports = (graph: Iterable<string>): string[] =>
  [...graph].filter((spec) => spec.startsWith('node:') || NODE_BUILTINS.has(spec))

describe('package exports', () => {
  it('has the documented subpaths', () => {
    expect(entries.map(([subpath]) => subpath).sort()).toEqual(
      [
        '.',
        './apps',
        './client',
        './client/stdio',
        './node',
        './openapi',
        './proxy',
        './redis',
        './skills',
        './sqlite',
        './stdio',
        './wire',
      ].sort(),
    )
  })

  it.each(entries)(
    '%s points at built types and a module that loads with named exports',
    async (subpath, target) => {
      expect(readFileSync(join(ROOT, target.types), 'utf8').length, `${subpath} types`).toBeGreaterThan(0)
      const module = (await import(join(ROOT, target.default))) as Record<string, unknown>
      expect(Object.keys(module).length, subpath).toBeGreaterThan(0)
      expect(Object.keys(module), `${subpath} has no default export`).not.toContain('default')
    },
  )
})

describe.each(entries)('entry %s: a surface chosen name by name', (_subpath, target) => {
  it('re-exports by name only (no `export *`), so a new helper never goes public by accident', () => {
    const source = readFileSync(sourceOf(target), 'utf8')
    expect(source.match(/^export\s+(?:type\s+)?\*.*$/gm) ?? []).toEqual([])
  })
})

describe('the root entry', () => {
  it('keeps implementation types and classes out, and exports what its functions throw', async () => {
    const root = readFileSync(join(ROOT, 'dist/index.d.ts'), 'utf8')
    for (const name of [
      'CompiledTool',
      'CompiledPrompt',
      'CompiledResource',
      'CompiledTemplate',
      'ToolRegistry',
      'MethodSpec',
      'Reply',
      'Feature',
      'FeatureHost',
      'RawJson',
      'Catalog',
    ]) {
      expect(root, name).not.toMatch(new RegExp(`\\b${name}\\b(?!Error)`))
    }
    const module = (await import(join(ROOT, 'dist/index.js'))) as Record<string, unknown>
    for (const name of [
      'rawJson',
      'Catalog',
      'RequestContext',
      'RequestInputs',
      'BearerAuth',
      'HandleKind',
    ]) {
      expect(Object.keys(module), name).not.toContain(name)
    }
    expect(Object.keys(module)).toContain('UriTemplateError')
  })
})

describe.each(['.', './apps', './client', './wire'])('entry %s', (subpath) => {
  const target = pkg.exports[subpath] as Target

  it('reaches no node:* module, directly or indirectly', () => {
    const graph = importGraph(sourceOf(target))
    expect(nodeImports(graph)).toEqual([])
    expect(graph.size).toBeGreaterThan(1)
  })
})

describe('node-only entries', () => {
  it('the stdio client lives apart from toolwire/client, which never imports it', () => {
    const client = importGraph(sourceOf(pkg.exports['./client'] as Target))
    expect([...client].some((file) => file.endsWith('client/stdio.ts'))).toBe(false)
    const stdio = importGraph(sourceOf(pkg.exports['./client/stdio'] as Target))
    expect(nodeImports(stdio)).toContain('node:child_process')
  })
})

/** What a built module loads when it is imported: its static imports, followed through the built files. */
function loadedAtImport(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  for (const match of readFileSync(file, 'utf8').matchAll(
    /^(?:import|export)\s(?:[^'"]*?from\s*)?'([^']+)';?$/gm,
  )) {
    const spec = match[1] ?? ''
    if (spec.startsWith('.')) loadedAtImport(join(dirname(file), spec), seen)
    else seen.add(spec)
  }
  return seen
}

describe('the OpenAPI parser', () => {
  it('loads when a document is read (an optional peer dependency): never at import or CLI start-up', () => {
    const parser = '@apidevtools/swagger-parser'
    expect(loadedAtImport(join(ROOT, 'dist/openapi/index.js'))).not.toContain(parser)
    expect(loadedAtImport(join(ROOT, 'dist/index.js'))).not.toContain(parser)
    expect(loadedAtImport(join(ROOT, 'dist/cli/main.js'))).not.toContain(parser)
    const built = [...loadedAtImport(join(ROOT, 'dist/openapi/index.js'))].filter((file) =>
      file.endsWith('.js'),
    )
    expect(built.some((file) => readFileSync(file, 'utf8').includes(`import('${parser}')`))).toBe(true)
  })
})
