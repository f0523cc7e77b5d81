/**
 * `toolwire registry`, run as users run it (the built CLI in a child process): the demo's server.json is valid
 * by the MCP Registry's published schema (vendored in src/cli/registry-schema/, checked here by ajv itself as
 * well as by toolwire's engine), `--check` passes on what was just written and fails, naming the drift, after a
 * version bump or a change of tools, and a package.json the registry would refuse is refused before anything
 * is written, naming the field and the file it came from. The registry's own valid and invalid examples
 * (test/vendor/mcp-registry-examples/) get the same verdict from toolwire's engines as from ajv.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import AjvModule from 'ajv'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { SchemaCompiler } from '../src/schema/json-schema.js'
import { CLI, ROOT } from './helpers/paths.js'

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

const VENDORED = join(ROOT, 'src', 'cli', 'registry-schema', 'server.schema.json')
const schemaText = readFileSync(VENDORED, 'utf8')
const schema = JSON.parse(schemaText) as Record<string, unknown>
const PACKAGE = join(ROOT, 'package.json')
const pkg = JSON.parse(readFileSync(PACKAGE, 'utf8')) as Record<string, unknown>

/** The registry's schema as ajv (draft-07, its formats) judges a document: the world's validator, not ours. */
function ajvIssues(document: unknown): string[] {
  const ajv = new AjvModule.default({ strict: false, allErrors: true })
  addFormatsModule.default(ajv)
  const validate = ajv.compile(schema)
  return validate(document)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`)
}

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'toolwire-registry-'))
const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>

/** A server module in a temporary folder, built with the toolwire this repository builds. */
function writeModule(dir: string, tools: readonly string[], extra = ''): string {
  const path = join(dir, 'server.mjs')
  const index = pathToFileURL(join(ROOT, 'dist', 'index.js')).href
  const definitions = tools
    .map((name) => `defineTool({ name: '${name}', description: 'd', handler: () => 'ok' })`)
    .join(', ')
  writeFileSync(
    path,
    `import { defineServer, defineTool } from '${index}'\n` +
      `export default defineServer({ name: 'tools', version: '1.0.0', ${extra} tools: [${definitions}] })\n`,
  )
  return path
}

describe('the vendored registry schema', () => {
  it('is the published 2025-12-11 schema, shipped in dist/, and toolwire compiles it in both engines', () => {
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json')
    expect(readFileSync(join(ROOT, 'dist', 'registry-schema', 'server.schema.json'), 'utf8')).toBe(schemaText)
    expect(existsSync(join(ROOT, 'dist', 'registry-schema', 'LICENSE'))).toBe(true)
    const invalid = { name: 'no slash', description: 'x'.repeat(101), version: '1.0.0' }
    for (const validator of ['ajv', 'interpreted'] as const) {
      const compiled = new SchemaCompiler({ validator }).compile(schema, 'registry')
      expect(compiled.dialect).toBe('draft-07')
      const outcome = compiled.validate(invalid)
      expect(outcome.ok).toBe(false)
      const issues = outcome.ok ? [] : outcome.issues.join('\n')
      expect(issues).toMatch(/^name: /m)
      expect(issues).toMatch(/^description: /m)
      // A package version of "latest" is refused (`not: { const: "latest" }`).
      const latest = compiled.validate({
        name: 'io.example/x',
        description: 'd',
        version: '1.0.0',
        packages: [{ registryType: 'npm', identifier: 'x', version: 'latest', transport: { type: 'stdio' } }],
      })
      expect(latest.ok).toBe(false)
    }
  })
})

describe("the registry's own examples", () => {
  const folder = join(ROOT, 'test', 'vendor', 'mcp-registry-examples')
  const examples = (kind: 'valid' | 'invalid') =>
    readdirSync(join(folder, kind)).map((file) => [file, readJson(join(folder, kind, file))] as const)
  const engines = (['ajv', 'interpreted'] as const).map((validator) =>
    new SchemaCompiler({ validator }).compile(schema, 'registry'),
  )

  it.each(examples('valid'))('valid/%s passes in both engines and in ajv alone', (_file, document) => {
    for (const engine of engines) expect(engine.validate(document)).toEqual({ ok: true, value: document })
    expect(ajvIssues(document)).toEqual([])
  })

  it.each(examples('invalid'))('invalid/%s fails in both engines and in ajv alone', (_file, document) => {
    for (const engine of engines) expect(engine.validate(document).ok).toBe(false)
    expect(ajvIssues(document)).not.toEqual([])
  })
})

describe('toolwire registry --demo', () => {
  it('writes a server.json for the demo that the registry schema accepts, and --check passes on it', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    const flags = [
      '--package',
      PACKAGE,
      '--out',
      out,
      '--transport',
      'stdio',
      '--transport',
      'streamable-http',
    ]
    const run = await cli(['registry', '--demo', ...flags])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('io.github.toolwire/toolwire-demo')
    const document = readJson(out)
    expect(ajvIssues(document)).toEqual([])
    expect(document).toMatchObject({
      $schema: schema.$id,
      name: pkg.mcpName,
      version: pkg.version,
      repository: { url: 'https://github.com/toolwire/toolwire', source: 'github' },
      packages: [
        {
          registryType: 'npm',
          identifier: 'toolwire',
          version: pkg.version,
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', value: 'demo' },
            { type: 'positional', value: '--stdio' },
          ],
        },
        {
          registryType: 'npm',
          identifier: 'toolwire',
          transport: { type: 'streamable-http', url: 'http://127.0.0.1:3000/mcp' },
        },
      ],
    })
    const recorded = (document._meta as Record<string, { tools: string[] }>)[
      'io.modelcontextprotocol.registry/publisher-provided'
    ]
    expect(recorded?.tools).toContain('arithmetic')
    expect(recorded?.tools).toEqual([...(recorded?.tools ?? [])].sort())

    const check = await cli(['registry', '--demo', ...flags, '--check'])
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toContain('up to date')
    // --check writes nothing.
    expect(readJson(out)).toEqual(document)
  })

  it('--check fails, naming the version, after package.json is bumped', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    expect((await cli(['registry', '--demo', '--package', PACKAGE, '--out', out])).code).toBe(0)
    const bumped = join(dir, 'package.json')
    writeFileSync(bumped, JSON.stringify({ ...pkg, version: '9.8.7' }, null, 2))
    const check = await cli(['registry', '--demo', '--package', bumped, '--out', out, '--check'])
    expect(check.code).toBe(1)
    expect(check.stderr).toContain(`version is "${String(pkg.version)}", package.json says "9.8.7"`)
    expect(check.stderr).toContain(`packages[0].version is "${String(pkg.version)}"`)
    // Writing again brings it up to date.
    expect((await cli(['registry', '--demo', '--package', bumped, '--out', out])).code).toBe(0)
    expect((await cli(['registry', '--demo', '--package', bumped, '--out', out, '--check'])).code).toBe(0)
  })

  it('--check on a missing server.json fails and says how to write it', async () => {
    const out = join(tempDir(), 'server.json')
    const check = await cli(['registry', '--demo', '--package', PACKAGE, '--out', out, '--check'])
    expect(check.code).toBe(1)
    expect(check.stderr).toContain('does not exist: run toolwire registry')
  })
})

describe('toolwire registry <module>', () => {
  const packageFile = (dir: string, fields: Record<string, unknown>): string => {
    const path = join(dir, 'package.json')
    writeFileSync(
      path,
      JSON.stringify({
        name: '@example/tools',
        version: '1.0.0',
        mcpName: 'io.github.example/tools',
        ...fields,
      }),
    )
    return path
  }

  it('--check names the tools added and removed since server.json was written', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    const manifest = packageFile(dir, { description: 'Example tools' })
    const module = writeModule(dir, ['alpha', 'beta'])
    const first = await cli(['registry', module, '--package', manifest, '--out', out])
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(ajvIssues(readJson(out))).toEqual([])
    writeModule(dir, ['alpha', 'gamma'])
    const check = await cli(['registry', module, '--package', manifest, '--out', out, '--check'])
    expect(check.code).toBe(1)
    expect(check.stderr).toContain('tools added since: gamma')
    expect(check.stderr).toContain('tools removed since: beta')
    expect(check.stderr).not.toContain('version')
  })

  it('lists a remote with the headers given by flags', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    const run = await cli([
      'registry',
      writeModule(dir, ['alpha'], "description: 'Example tools',"),
      '--package',
      packageFile(dir, {}),
      '--out',
      out,
      '--remote',
      'https://mcp.example.com/mcp',
      '--secret-header',
      'Authorization: Bearer token from example.com',
      '--header',
      'X-Tenant',
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const document = readJson(out)
    expect(ajvIssues(document)).toEqual([])
    expect(document.description).toBe('Example tools')
    expect(document.remotes).toEqual([
      {
        type: 'streamable-http',
        url: 'https://mcp.example.com/mcp',
        headers: [
          { name: 'X-Tenant', isRequired: true },
          {
            name: 'Authorization',
            description: 'Bearer token from example.com',
            isRequired: true,
            isSecret: true,
          },
        ],
      },
    ])
  })

  it('refuses a name the registry does not allow, naming the field and package.json, and writes nothing', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    const run = await cli([
      'registry',
      writeModule(dir, ['alpha']),
      '--package',
      packageFile(dir, { mcpName: 'example tools', description: 'Example tools' }),
      '--out',
      out,
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('not valid for the MCP Registry')
    expect(run.stderr).toMatch(/name: must match pattern .* \(from package\.json mcpName\)/)
    expect(existsSync(out)).toBe(false)
  })

  it('refuses a description over 100 characters, naming the field and package.json', async () => {
    const dir = tempDir()
    const out = join(dir, 'server.json')
    const run = await cli([
      'registry',
      writeModule(dir, ['alpha']),
      '--package',
      packageFile(dir, { description: 'x'.repeat(101) }),
      '--out',
      out,
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/description: .*100.* \(from package\.json description\)/)
    expect(existsSync(out)).toBe(false)
  })

  it('refuses a package.json past its size bound without reading it', async () => {
    const dir = tempDir()
    const manifest = join(dir, 'package.json')
    writeFileSync(manifest, `{"name":"x","pad":"${'x'.repeat(1024 * 1024)}"}`)
    const run = await cli(['registry', '--package', manifest, '--out', join(dir, 'server.json')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('more than the 1048576 a package.json may have')
  })
})
