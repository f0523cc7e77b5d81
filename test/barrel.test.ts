/** The root entry must run on any runtime: no `node:*` module anywhere in its import graph. */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'

const SRC = join(ROOT, 'src')

function importGraph(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen
  seen.add(entry)
  const text = readFileSync(entry, 'utf8')
  for (const match of text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
    const spec = match[1] ?? ''
    if (spec.startsWith('.')) importGraph(join(dirname(entry), spec.replace(/\.js$/, '.ts')), seen)
    else seen.add(spec)
  }
  return seen
}

describe('root entry', () => {
  it('imports no node:* module, directly or indirectly', () => {
    const graph = [...importGraph(join(SRC, 'index.ts'))]
    expect(
      graph.filter((spec) => spec.startsWith('node:') || ['fs', 'http', 'net', 'path'].includes(spec)),
    ).toEqual([])
    expect(graph.some((spec) => spec.endsWith('dispatcher.ts'))).toBe(true)
  })
})

describe('package exports', () => {
  it('every subpath export points at a built file that loads', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>
    }
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue
      const file = join(ROOT, target.default)
      expect(readFileSync(join(ROOT, target.types), 'utf8').length, `${subpath} types`).toBeGreaterThan(0)
      const module = (await import(file)) as Record<string, unknown>
      expect(Object.keys(module).length, subpath).toBeGreaterThan(0)
    }
  })
})
