/**
 * Every code block of README.md and docs/ reads the same on GitHub and on the site, and runs as shown:
 *
 * - A block marked `<!-- all of examples/x.ts -->` or `<!-- fragment of examples/x.ts#region -->` is that
 *   example (or its region, under the imports it uses) word for word (scripts/docs-snippets.ts writes them;
 *   `npm run docs:snippets`); the example itself is type-checked and run by test/examples.test.ts. No page
 *   uses a VitePress `<<<` include, which GitHub shows as nothing.
 * - Every other ```ts (or ```js) block is a complete module: each is written to .snippets/ and all are
 *   type-checked in one program against the built package, with the project's compiler options.
 * - A block marked `<!-- runs -->` (or `<!-- runs against examples/server.ts -->`, which serves that module
 *   with `toolwire serve` on a free port and points the block's `http://127.0.0.1:3000/mcp` at it) is run
 *   with tsx in a project made as the README says (`npm init -y`, `npm pkg set type=module`, toolwire
 *   installed), and must exit 0.
 *
 * The README's quick start must be examples/server.ts word for word, so the server the README shows is the
 * one `toolwire serve` is tested with.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { MARKER, markdownFiles, syncDocs } from '../scripts/docs-snippets.js'
import { CLI, ROOT } from './helpers/paths.js'

interface Snippet {
  readonly source: string
  readonly line: number
  readonly lang: 'ts' | 'js'
  readonly code: string
  /** The HTML comment right above the block (blank lines between allowed), if any. */
  readonly marker: string | undefined
}

const RUNS = /^<!-- runs(?: against (examples\/[\w.-]+\.ts))? -->$/
/** The address blocks that run against a served module write; the test points it at the served one. */
const DOCUMENTED_URL = 'http://127.0.0.1:3000/mcp'

function snippetsOf(source: string): Snippet[] {
  const lines = readFileSync(join(ROOT, source), 'utf8').split('\n')
  const snippets: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(ts|typescript|js|javascript)\b/.exec(lines[i] ?? '')
    if (!fence) continue
    let above = i - 1
    while (above >= 0 && lines[above] === '') above--
    const marker = /^<!--.*-->$/.test(lines[above] ?? '') ? lines[above] : undefined
    const start = i + 1
    while (i + 1 < lines.length && lines[i + 1] !== '```') i++
    const lang = fence[1]?.startsWith('j') ? 'js' : 'ts'
    snippets.push({ source, line: start, lang, code: lines.slice(start, i + 1).join('\n'), marker })
    i++
  }
  return snippets
}

const snippets = markdownFiles().flatMap(snippetsOf)
/** Blocks that are examples/ word for word: checked and run as the example files themselves. */
const fromExamples = (snippet: Snippet): boolean => MARKER.test(snippet.marker ?? '')
const runnable = snippets.filter((snippet) => RUNS.test(snippet.marker ?? ''))
const run = promisify(execFile)

/** `toolwire serve <module> --http 127.0.0.1:0` from the repository; its URL, and a stop. */
async function serve(module: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'serve', module, '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM')
    await exited
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      let err = ''
      const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr: ${err}`)), 30_000)
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /Serving \S+ on (http:\S+)/.exec(out)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
      child.once('exit', (code) => reject(new Error(`toolwire serve exited with ${code}: ${err}`)))
    })
    return { url, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

describe('documentation code', () => {
  it('finds the code blocks of README.md and docs/, and the ones to run', () => {
    expect(snippets.some((snippet) => snippet.source === 'README.md')).toBe(true)
    expect(runnable.map((snippet) => snippet.source)).toContain('README.md')
  })

  it('no page includes a file with `<<<` (GitHub shows it as nothing): the code is written out', () => {
    const includes = markdownFiles().flatMap((source) =>
      readFileSync(join(ROOT, source), 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.startsWith('<<<') ? [`${source}:${i + 1}: ${line}`] : [])),
    )
    expect(includes).toEqual([])
  })

  it('every block marked as (part of) an example is that example word for word', () => {
    // Run `npm run docs:snippets` to rewrite them after changing an example.
    expect(syncDocs(false)).toEqual([])
    expect(snippets.filter(fromExamples).length).toBeGreaterThan(20)
  })

  it('every other ```ts and ```js block type-checks against the package', { timeout: 60_000 }, () => {
    const dir = join(ROOT, '.snippets')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    const names = new Map<string, Snippet>()
    for (const snippet of snippets.filter((candidate) => !fromExamples(candidate))) {
      const extension = snippet.lang === 'js' ? 'mjs' : 'ts'
      const name = join(dir, `${snippet.source.replace(/[^\w]+/g, '_')}_${snippet.line}.${extension}`)
      // A block without import or export is a script to the compiler; make each one a module of its own.
      writeFileSync(
        name,
        /^(import|export) /m.test(snippet.code) ? snippet.code : `${snippet.code}\nexport {}\n`,
      )
      names.set(name, snippet)
    }
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
        },
      },
    )
    if (!config) throw new Error('tsconfig.json could not be read')
    const program = ts.createProgram([...names.keys()], {
      ...config.options,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      noUnusedLocals: true,
    })
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const file = diagnostic.file?.fileName
      const snippet = file ? names.get(file) : undefined
      const at =
        diagnostic.file && diagnostic.start !== undefined
          ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
          : 0
      const where = snippet ? `${snippet.source}:${snippet.line + at + 1}` : (file ?? 'tsconfig')
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
    })
    rmSync(dir, { recursive: true, force: true })
    expect(problems).toEqual([])
  })

  it(
    'every block marked `runs` runs in a project made as the README says, and exits 0',
    { timeout: 120_000 },
    async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
      const install = /## Install\n\n```bash\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
      expect(install).toMatch(/^npm pkg set type=module\b/m)
      // The project: `npm init -y` (CommonJS by default), then the README's `npm pkg set type=module`, and
      // toolwire installed (a link to this repository, the only thing npm would fetch).
      const project = join(ROOT, '.snippets', 'project')
      rmSync(project, { recursive: true, force: true })
      mkdirSync(join(project, 'node_modules'), { recursive: true })
      symlinkSync(ROOT, join(project, 'node_modules', 'toolwire'), 'dir')
      const npm = { cwd: project, env: { ...process.env, npm_config_yes: 'true' } }
      await run('npm', ['init', '-y'], npm)
      await run('npm', ['pkg', 'set', 'type=module'], npm)
      const tsx = import.meta.resolve('tsx')
      const served = new Map<string, Awaited<ReturnType<typeof serve>>>()
      const failures: string[] = []
      try {
        for (const snippet of runnable) {
          const against = RUNS.exec(snippet.marker ?? '')?.[1]
          let code = snippet.code
          if (against !== undefined) {
            const server = served.get(against) ?? (await serve(against))
            served.set(against, server)
            expect(code).toContain(DOCUMENTED_URL)
            code = code.replaceAll(DOCUMENTED_URL, server.url)
          }
          const file = join(
            project,
            `${snippet.source.replace(/[^\w]+/g, '_')}_${snippet.line}.${snippet.lang}`,
          )
          writeFileSync(file, code)
          const outcome = await run(process.execPath, ['--import', tsx, file], {
            cwd: project,
            timeout: 60_000,
          }).then(
            ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
            (error: { code?: number; stdout?: string; stderr?: string }) => ({
              code: error.code ?? -1,
              stdout: error.stdout ?? '',
              stderr: error.stderr ?? '',
            }),
          )
          if (outcome.code !== 0)
            failures.push(`${snippet.source}:${snippet.line}: exit ${outcome.code}\n${outcome.stderr}`)
          if (snippet.source === 'README.md') expect(outcome.stdout).toContain('{ sum: 5 }')
        }
      } finally {
        for (const server of served.values()) await server.stop()
        rmSync(project, { recursive: true, force: true })
      }
      expect(failures).toEqual([])
    },
  )

  it("the README's quick start is examples/server.ts, the module `toolwire serve` is tested with", () => {
    const example = readFileSync(join(ROOT, 'examples', 'server.ts'), 'utf8').trimEnd()
    const first = snippetsOf('README.md')[0]
    expect(first?.code).toBe(example)
  })
})
