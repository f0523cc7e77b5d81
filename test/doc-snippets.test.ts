/**
 * Every TypeScript block in README.md and docs/ is checked: a page either includes an example file
 * (`<<< @/../examples/x.ts`, run by test/examples.test.ts) or writes a ```ts block, which must type-check
 * as a module of its own against the built package (each block is written to .snippets/ and compiled with
 * the project's compiler options). The README's quick start must be examples/server.ts word for word, so
 * the server the README shows is the one `toolwire serve` is tested with.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'

interface Snippet {
  readonly source: string
  readonly line: number
  readonly code: string
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return entry.name === 'api' || entry.name.startsWith('.') ? [] : markdownFiles(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(file, 'utf8').split('\n')
  const snippets: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\b/.test(lines[i] ?? '')) continue
    const start = i + 1
    while (i + 1 < lines.length && lines[i + 1] !== '```') i++
    snippets.push({ source: relative(ROOT, file), line: start, code: lines.slice(start, i + 1).join('\n') })
    i++
  }
  return snippets
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]
const snippets = files.flatMap(snippetsOf)

describe('documentation code', () => {
  it('finds the TypeScript blocks of README.md and docs/', () => {
    expect(snippets.some((snippet) => snippet.source === 'README.md')).toBe(true)
  })

  it('every ```ts block type-checks against the package', { timeout: 60_000 }, () => {
    const dir = join(ROOT, '.snippets')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    const names = new Map<string, Snippet>()
    for (const snippet of snippets) {
      const name = join(dir, `${snippet.source.replace(/[^\w]+/g, '_')}_${snippet.line}.ts`)
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

  it("the README's quick start is examples/server.ts, the module `toolwire serve` is tested with", () => {
    const example = readFileSync(join(ROOT, 'examples', 'server.ts'), 'utf8').trimEnd()
    const first = snippetsOf(join(ROOT, 'README.md'))[0]
    expect(first?.code).toBe(example)
  })
})
