/**
 * The pieces of `toolwire registry` that need no process: package.json's repository forms, the tool record
 * kept within the official registry's 4 KB of publisher `_meta` (past it, a digest that still shows a change),
 * and where each field comes from when definition and package.json disagree.
 */
import { describe, expect, it } from 'vitest'
import { driftOf } from '../src/cli/registry/drift.js'
import {
  buildServerJson,
  PUBLISHER_META_KEY,
  PUBLISHER_META_MAX_BYTES,
  repositoryOf,
  toolRecord,
} from '../src/cli/registry/server-json.js'

const SCHEMA_ID = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json'
const options = { schemaId: SCHEMA_ID, transports: ['stdio'] as const }

describe('repositoryOf', () => {
  it('reads the forms package.json uses and drops credentials', () => {
    const github = { url: 'https://github.com/o/r', source: 'github' }
    expect(repositoryOf({ type: 'git', url: 'git+https://github.com/o/r.git' })).toEqual(github)
    expect(repositoryOf('github:o/r')).toEqual(github)
    expect(repositoryOf('git://github.com/o/r.git')).toEqual(github)
    expect(repositoryOf('https://user:secret@gitlab.com/o/r')).toEqual({
      url: 'https://gitlab.com/o/r',
      source: 'gitlab',
    })
    expect(repositoryOf({ url: 'https://github.com/o/r', directory: 'packages/x' })).toMatchObject({
      subfolder: 'packages/x',
    })
    expect(repositoryOf('git@github.com:o/r.git')).toBeUndefined()
    expect(repositoryOf(42)).toBeUndefined()
  })
})

describe('toolRecord', () => {
  it('keeps the sorted names while they fit the 4 KB the registry keeps, then a count and a digest', () => {
    expect(toolRecord(['b', 'a'])).toEqual({ tools: ['a', 'b'] })
    const many = Array.from({ length: 400 }, (_, index) => `tool_number_${index}`)
    expect(JSON.stringify({ tools: many }).length).toBeGreaterThan(PUBLISHER_META_MAX_BYTES)
    const record = toolRecord(many)
    expect(record.toolCount).toBe(400)
    expect(record.toolsDigest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(JSON.stringify(record).length).toBeLessThanOrEqual(PUBLISHER_META_MAX_BYTES)
    // Order does not matter; a renamed tool does.
    expect(toolRecord([...many].reverse())).toEqual(record)
    expect(toolRecord([...many.slice(1), 'another']).toolsDigest).not.toBe(record.toolsDigest)
  })

  it('a changed digest is drift', () => {
    const many = (last: string) => [
      ...Array.from({ length: 400 }, (_, index) => `tool_${index}_xxxxxx`),
      last,
    ]
    const before = buildServerJson(
      { name: 'p', version: '1.0.0', mcpName: 'io.example/p' },
      { description: 'd', tools: many('a') },
      options,
    ).document
    const after = buildServerJson(
      { name: 'p', version: '1.0.0', mcpName: 'io.example/p' },
      { description: 'd', tools: many('b') },
      options,
    ).document
    expect(driftOf(before, before)).toEqual([])
    expect(driftOf(before, after)).toEqual(['the tools differ from those recorded (digest changed)'])
  })
})

describe('buildServerJson', () => {
  it('takes the name from mcpName, the version from package.json, and says where each came from', () => {
    const built = buildServerJson(
      { name: '@o/p', version: '2.0.0', description: 'from package.json', mcpName: 'io.github.o/p' },
      { name: 'p', version: '1.9.0', description: 'from the server', tools: [] },
      options,
    )
    expect(built.document).toMatchObject({
      name: 'io.github.o/p',
      version: '2.0.0',
      description: 'from the server',
      packages: [{ registryType: 'npm', identifier: '@o/p', version: '2.0.0', transport: { type: 'stdio' } }],
      _meta: { [PUBLISHER_META_KEY]: { tools: [] } },
    })
    expect(built.sources.get('name')).toBe('package.json mcpName')
    expect(built.sources.get('description')).toBe("the server's description")
    expect(built.warnings).toEqual([
      "the server says version 1.9.0, package.json 2.0.0: server.json takes package.json's",
    ])
  })

  it('refuses two different names, and warns when package.json has no mcpName', () => {
    expect(() =>
      buildServerJson(
        { name: 'p', version: '1.0.0', mcpName: 'io.example/a' },
        { description: 'd', card: { name: 'io.example/b' } },
        options,
      ),
    ).toThrow(/mcpName is "io.example\/a" but the server card's name is "io.example\/b"/)
    const built = buildServerJson(
      { name: 'p', version: '1.0.0' },
      { description: 'd', card: { name: 'io.example/b' } },
      options,
    )
    expect(built.document.name).toBe('io.example/b')
    expect(built.warnings[0]).toContain('"mcpName": "io.example/b"')
  })
})
