/**
 * `toolwire serve server.ts` and `toolwire dev ./server.ts` in a project of the user's own (a temporary
 * folder outside the repository, so neither tsx nor toolwire resolve from the repository's node_modules;
 * NODE_PATH and NODE_OPTIONS cleared): without tsx on Node 20 the answer is one line saying what to install
 * and no stack; with tsx in the project the module just runs; on Node 22.18+ it runs through Node's own type
 * stripping, and a `./tool.js` import of `tool.ts` (which stripping cannot follow) gets the one line.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, NODE_22, ROOT } from './helpers/paths.js'

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const projects: string[] = []
afterAll(() => {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true })
})

/** A project folder holding these files, with `toolwire` (this repository) and the given packages installed. */
function project(files: Record<string, string>, packages: readonly string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-ts-'))
  projects.push(dir)
  writeFileSync(join(dir, 'package.json'), '{ "name": "my-tools", "version": "1.0.0", "type": "module" }\n')
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules', 'toolwire'), 'dir')
  for (const name of packages)
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

function run(node: string, args: readonly string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_PATH: '' }
  delete env.NODE_OPTIONS
  return new Promise((resolve) => {
    execFile(node, [CLI, ...args], { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

/** A server in TypeScript proper: a type annotation, an interface, and a `./tool.js` import of tool.ts. */
const SERVER = {
  'tool.ts': `import { defineTool, jsonSchema } from 'toolwire'
interface Sum { sum: number }
export const add = defineTool({
  name: 'add',
  inputSchema: jsonSchema<{ a: number; b: number }>({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  }),
  handler: ({ a, b }): Sum => ({ sum: a + b }),
})
`,
  'server.ts': `import { defineServer } from 'toolwire'
import { add } from './tool.js'
const name: string = 'calc'
export default defineServer({ name, version: '1.0.0', tools: [add] })
`,
}

/** The same server in one file with nothing but erasable syntax: what Node's type stripping runs. */
const STRIPPABLE = {
  'server.ts': `import { defineServer, defineTool } from 'toolwire'
const name: string = 'calc'
const add = defineTool({ name: 'add', handler: (): string => '5' })
export default defineServer({ name, version: '1.0.0', tools: [add] })
`,
}

function expectOneLine(result: Run, message: RegExp): void {
  expect(result.code).not.toBe(0)
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1)
  expect(result.stderr).toMatch(message)
  expect(result.stderr).not.toMatch(/^\s+at /m)
}

describe('a TypeScript server module', { timeout: 90_000 }, () => {
  it('without tsx on Node 20, `serve` says in one line what to install', async () => {
    const dir = project(SERVER)
    const result = await run(process.execPath, ['serve', 'server.ts', '--stdio'], dir)
    expectOneLine(
      result,
      /^toolwire: server\.ts is TypeScript: install tsx .*\(npm install -D tsx\).*Node 22\.18\+/,
    )
  })

  it('without tsx on Node 20, `dev` says the same line and starts nothing', async () => {
    const dir = project(SERVER)
    const result = await run(process.execPath, ['dev', './server.ts', '--no-open'], dir)
    expectOneLine(result, /^toolwire: \.\/server\.ts is TypeScript: install tsx .*\(npm install -D tsx\)/)
    expect(result.stdout).toBe('')
  })

  it('with tsx in the project, `serve` registers it and the module runs', async () => {
    const dir = project(SERVER, ['tsx'])
    const result = await run(
      process.execPath,
      [
        'call',
        'add',
        'a=2',
        'b=3',
        '--yes',
        '--json',
        '--',
        process.execPath,
        CLI,
        'serve',
        'server.ts',
        '--stdio',
      ],
      dir,
    )
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
      code: 0,
      stderr: '',
    })
    expect(JSON.parse(result.stdout)).toMatchObject({ structuredContent: { sum: 5 } })
  })

  it.runIf(existsSync(NODE_22))('on Node 22.18+ without tsx, Node strips the types', async () => {
    const dir = project(STRIPPABLE)
    const result = await run(
      NODE_22,
      ['call', 'add', '--yes', '--', NODE_22, CLI, 'serve', 'server.ts', '--stdio'],
      dir,
    )
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
      code: 0,
      stderr: '',
    })
    expect(result.stdout).toContain('5')
  })

  it.runIf(existsSync(NODE_22))(
    'on Node 22.18+ without tsx, a ./tool.js import of tool.ts gets one line naming tsx',
    async () => {
      const dir = project(SERVER)
      const result = await run(NODE_22, ['serve', 'server.ts', '--stdio'], dir)
      expectOneLine(
        result,
        /^toolwire: server\.ts failed to load with Node's type stripping \(.*tool\.js.*npm install -D tsx/,
      )
    },
  )
})
