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
