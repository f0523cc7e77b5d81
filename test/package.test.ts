/**
 * The published package as a user meets it in the first ten minutes: `npm pack`, then `npm install` of the
 * tarball into an empty project (from the npm cache when it can; the registry otherwise).
 *
 * - The install is small: at most 25 packages, toolwire included, and `npx toolwire` works from it.
 * - A TypeScript project with the README's server and client and an import of every `exports` subpath
 *   type-checks with `strict` and `skipLibCheck: false` and no `types` list, under TypeScript 5.9 and under the
 *   newest release (which includes no `@types/*` package unless listed: the declarations that need Node's
 *   types must reference them), each with `module: NodeNext` and with `module: preserve` (bundlers).
 * - No declaration reached from an entry names an optional peer dependency, except the two entries built on
 *   one (`toolwire/redis` takes ioredis clients, `toolwire/apps` takes an ext-apps `AppBridge`): a project
 *   without zod, OpenTelemetry or the others type-checks. The entries meant for browsers and workers reach
 *   none of Node's types either.
 * - arethetypeswrong finds no problem. Profile `esm-only`: toolwire is an ES module package (no `require`
 *   condition), so `require()` from CommonJS (node16-cjs) and the pre-`exports` node10 resolution, which a
 *   CommonJS-only package would need, are not checked; node16 from ESM and bundler resolution are.
 * - Every link in the packed README is absolute, so it works on the registry's package page.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'

/** The newest TypeScript release (`npm view typescript dist-tags`); raise it when a new one ships. */
const NEWEST_TYPESCRIPT = '7.0.2'
const MAX_PACKAGES = 25
/** The optional peer dependencies (and the types of one), as directories under node_modules. */
const OPTIONAL_PEERS = [
  'zod',
  '@opentelemetry',
  'better-sqlite3',
  '@types/better-sqlite3',
  'ioredis',
  'rate-limiter-flexible',
  '@modelcontextprotocol/ext-apps',
  '@apidevtools',
  'open',
]
/** Entries that run in browsers and workers (toolwire/apps too, but its types are ext-apps', which need Node's). */
const BROWSER_ENTRIES = ['toolwire', 'toolwire/client', 'toolwire/wire']

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 300_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

async function npm(args: string[], cwd: string): Promise<string> {
  const result = await run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd)
  if (result.code !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${result.stderr}`)
  return result.stdout
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T
const versionOf = (name: string): string =>
  readJson<{ version: string }>(join(ROOT, 'node_modules', name, 'package.json')).version

function bytesIn(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, entry))
    if (stat.isFile()) total += stat.size
  }
  return total
}

/** The TypeScript blocks of a markdown text, in order. */
const tsBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '')

const work = mkdtempSync(join(tmpdir(), 'toolwire-package-'))
const library = join(work, 'library')
const consumer = join(work, 'consumer')
let tarball = ''
let installed: string[] = []
let installedBytes = 0
const packed = (...path: string[]): string => join(library, 'node_modules', 'toolwire', ...path)

beforeAll(async () => {
  // `npm test` builds first; the tarball is what `npm publish` would upload, made from dist/ as it is.
  const [pack] = JSON.parse(
    await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT),
  ) as [{ filename: string }]
  tarball = join(work, pack.filename)

  mkdirSync(library)
  writeFileSync(join(library, 'package.json'), JSON.stringify({ name: 'library-user', private: true }))
  await npm(['install', tarball], library)
  const lock = readJson<{ packages: Record<string, unknown> }>(join(library, 'package-lock.json'))
  installed = Object.keys(lock.packages).filter((path) => path !== '')
  installedBytes = bytesIn(join(library, 'node_modules'))

  // The README's setup: `npm install toolwire zod`, `npm install -D typescript @types/node`, "type": "module".
  mkdirSync(consumer)
  const dependencies = {
    toolwire: `file:${tarball}`,
    zod: versionOf('zod'),
    ioredis: versionOf('ioredis'),
    '@modelcontextprotocol/ext-apps': versionOf('@modelcontextprotocol/ext-apps'),
    '@types/node': versionOf('@types/node'),
    'typescript-5.9': `npm:typescript@${versionOf('typescript')}`,
    'typescript-newest': `npm:typescript@${NEWEST_TYPESCRIPT}`,
  }
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }),
  )
  await npm(['install', '--ignore-scripts'], consumer)
  const readme = readFileSync(join(consumer, 'node_modules', 'toolwire', 'README.md'), 'utf8')
  const [server, client] = tsBlocks(readme)
  writeFileSync(join(consumer, 'server.ts'), server ?? '')
  writeFileSync(join(consumer, 'client.ts'), client ?? '')
  const subpaths = Object.keys(readJson<{ exports: object }>(join(ROOT, 'package.json')).exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => `toolwire${subpath.slice(1)}`)
  const importsOf = (specifiers: string[]): string =>
    specifiers.map((specifier, i) => `export * as entry${i} from '${specifier}'\n`).join('')
  writeFileSync(join(consumer, 'entries.ts'), importsOf(subpaths))
  writeFileSync(
    join(consumer, 'core.ts'),
    importsOf(subpaths.filter((spec) => spec !== 'toolwire/redis' && spec !== 'toolwire/apps')),
  )
  writeFileSync(join(consumer, 'browser.ts'), importsOf(BROWSER_ENTRIES))
  const base = { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022' }
  const configs = {
    nodenext: { module: 'nodenext' },
    bundler: { module: 'preserve', moduleResolution: 'bundler' },
  }
  for (const [name, options] of Object.entries(configs))
    writeFileSync(
      join(consumer, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: { ...base, ...options },
        files: ['server.ts', 'client.ts', 'entries.ts'],
      }),
    )
  writeFileSync(
    join(consumer, 'tsconfig.core.json'),
    JSON.stringify({ compilerOptions: { ...base, module: 'nodenext' }, files: ['core.ts'] }),
  )
  writeFileSync(
    join(consumer, 'tsconfig.browser.json'),
    JSON.stringify({ compilerOptions: { ...base, module: 'preserve', types: [] }, files: ['browser.ts'] }),
  )
}, 600_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('npm install toolwire', { timeout: 120_000 }, () => {
  it(`installs at most ${MAX_PACKAGES} packages, toolwire included`, () => {
    const names = installed.map((path) => path.replace(/^.*node_modules\//, ''))
    const listing = `${names.length} packages, ${(installedBytes / 1e6).toFixed(1)} MB:\n${names.join('\n')}`
    expect(names.length, listing).toBeLessThanOrEqual(MAX_PACKAGES)
    expect(names).toContain('toolwire')
  })

  it('runs the CLI with nothing else installed', async () => {
    const { version } = readJson<{ version: string }>(join(ROOT, 'package.json'))
    expect(await run('npx', ['--offline', 'toolwire', '--version'], library)).toMatchObject({
      code: 0,
      stdout: `${version}\n`,
    })
  })
})

describe('an optional feature without its package', () => {
  it('toolwire/openapi names the package to install', async () => {
    const script = `import('toolwire/openapi').then(({ fromOpenAPI }) => fromOpenAPI({ openapi: '3.0.3' }))
      .catch((error) => console.log(error.name, error.message))`
    const result = await run(process.execPath, ['--input-type=module', '-e', script], library)
    expect(result.stdout).toContain('OpenAPIError')
    expect(result.stdout).toContain('npm install @apidevtools/swagger-parser')
  })
})

describe("the package's types in a consumer project", { timeout: 240_000 }, () => {
  const compilers = {
    'TypeScript 5.9': 'typescript-5.9',
    [`TypeScript ${NEWEST_TYPESCRIPT}`]: 'typescript-newest',
  }
  for (const [compiler, dir] of Object.entries(compilers))
    for (const config of ['nodenext', 'bundler'])
      it(`type-check the README's server and client and every entry: ${compiler}, ${config}`, async () => {
        const tsc = join(consumer, 'node_modules', dir, 'bin', 'tsc')
        const result = await run(process.execPath, [tsc, '-p', `tsconfig.${config}.json`], consumer)
        expect(result.stdout + result.stderr).toBe('')
        expect(result.code).toBe(0)
      })

  it('reach no optional peer dependency outside the entries built on one', async () => {
    const tsc = join(consumer, 'node_modules', 'typescript-5.9', 'bin', 'tsc')
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.core.json', '--listFilesOnly'], consumer)
    expect(result.code).toBe(0)
    const files = result.stdout.split('\n').filter(Boolean)
    expect(files.some((file) => file.includes('/node_modules/toolwire/dist/index.d.ts'))).toBe(true)
    const peers = files.filter((file) =>
      OPTIONAL_PEERS.some((peer) => file.includes(`/node_modules/${peer}/`)),
    )
    expect(peers).toEqual([])
  })

  it("reach none of Node's types from the entries for browsers and workers", async () => {
    const tsc = join(consumer, 'node_modules', 'typescript-5.9', 'bin', 'tsc')
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.browser.json'], consumer)
    expect(checked.stdout + checked.stderr).toBe('')
    const listed = await run(
      process.execPath,
      [tsc, '-p', 'tsconfig.browser.json', '--listFilesOnly'],
      consumer,
    )
    expect(listed.stdout).not.toContain('/node_modules/@types/node/')
  })

  it('have no problem arethetypeswrong finds (profile esm-only)', async () => {
    const attw = join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js')
    const result = await run(
      process.execPath,
      [attw, tarball, '--profile', 'esm-only', '--format', 'json'],
      ROOT,
    )
    const report = JSON.parse(result.stdout) as { problems?: Record<string, { resolutionKind?: string }[]> }
    const checked = Object.values(report.problems ?? {})
      .flat()
      .filter((problem) => problem.resolutionKind !== 'node10' && problem.resolutionKind !== 'node16-cjs')
    expect(checked).toEqual([])
    expect(result.code).toBe(0)
  })
})

describe('the packed README', () => {
  it('links only to absolute addresses, which work on the registry page', () => {
    const readme = readFileSync(packed('README.md'), 'utf8')
    const targets = [
      ...readme.matchAll(/\]\(([^)\s]+)\)/g),
      ...readme.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm),
      ...readme.matchAll(/<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)"/g),
    ].map((match) => match[1] ?? '')
    expect(targets.length).toBeGreaterThan(10)
    expect(targets.filter((target) => !/^https:\/\//.test(target))).toEqual([])
  })

  it('opens with the commands a clone runs', () => {
    const readme = readFileSync(packed('README.md'), 'utf8')
    expect(readme).toMatch(/^# toolwire\n\n```bash\nnpm install && npm start .*\nnpm test .*\n```/)
  })
})
