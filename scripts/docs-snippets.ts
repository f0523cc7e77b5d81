/**
 * The code of examples/ shown in README.md and docs/*.md, written out inline so it reads the same on GitHub
 * (which shows a VitePress `<<< @/../examples/x.ts` include as nothing) and on the site.
 *
 * A ```ts block preceded by `<!-- all of examples/x.ts -->` is that whole file (without its `#region`
 * lines); one preceded by `<!-- fragment of examples/x.ts#name -->` is the `// #region name` of it, under
 * the imports the region uses and a line naming the file (so a reader sees where `connect` or `defineTool`
 * comes from, and that the rest is elsewhere). test/doc-snippets.test.ts fails when a block drifts from its example;
 * `npm run docs:snippets` rewrites the blocks (and turns a `<<<` include line into a marked block).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** `<!-- all of examples/x.ts -->` or `<!-- fragment of examples/x.ts#name -->`. */
export const MARKER = /^<!-- (all|fragment) of (examples\/[\w.-]+\.ts)(?:#([\w-]+))? -->$/
const PRINT_WIDTH = 110
const INCLUDE = /^<<< @\/\.\.\/(examples\/[\w.-]+\.ts)(?:#([\w-]+))?$/

/** README.md and every page of docs/ except the generated API reference, as paths from the root. */
export function markdownFiles(root: string = ROOT): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return entry.name === 'api' || entry.name.startsWith('.') ? [] : walk(path)
      return entry.name.endsWith('.md') ? [path] : []
    })
  return ['README.md', ...walk('docs')]
}

/** The lines of `// #region name` … `// #endregion name`, their common indentation removed. */
function regionOf(source: string, file: string, name: string): string[] {
  const lines = source.split('\n')
  const start = lines.findIndex((line) => line.trim() === `// #region ${name}`)
  const end = lines.findIndex((line, i) => i > start && line.trim() === `// #endregion ${name}`)
  if (start < 0 || end < 0) throw new Error(`${file} has no region ${name}`)
  const body = lines.slice(start + 1, end)
  const indent = Math.min(
    ...body.filter((line) => line.trim()).map((line) => /^ */.exec(line)?.[0].length ?? 0),
  )
  return body.map((line) => line.slice(indent))
}

/** The example's import declarations, each cut down to the names `code` uses; those it uses none of dropped. */
function importsUsedBy(source: string, file: string, code: string): string[] {
  const uses = (name: string): boolean =>
    new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code)
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true)
  const imports: string[] = []
  for (const statement of parsed.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue
    const clause = statement.importClause
    const from = statement.moduleSpecifier.getText(parsed)
    const keyword = clause.isTypeOnly ? 'import type' : 'import'
    const parts: string[] = []
    const names: string[] = []
    if (clause.name && uses(clause.name.text)) parts.push(clause.name.text)
    const bindings = clause.namedBindings
    if (bindings && ts.isNamespaceImport(bindings) && uses(bindings.name.text))
      parts.push(`* as ${bindings.name.text}`)
    if (bindings && ts.isNamedImports(bindings)) {
      const named = bindings.elements.filter((element) => uses(element.name.text))
      if (named.length > 0) names.push(...named.map((element) => element.getText(parsed)))
    }
    if (parts.length === 0 && names.length === 0) continue
    const head = [...parts, ...(names.length > 0 ? [`{ ${names.join(', ')} }`] : [])].join(', ')
    const line = `${keyword} ${head} from ${from}`
    // As prettier prints it (.prettierrc's printWidth): one line if it fits, else one name a line.
    if (line.length <= PRINT_WIDTH || names.length === 0) imports.push(line)
    else
      imports.push(
        `${keyword} ${parts.map((part) => `${part}, `).join('')}{\n${names.map((name) => `  ${name},\n`).join('')}} from ${from}`,
      )
  }
  return imports
}

/** What the block marked `kind` of `file` (and `region`) must hold. */
export function exampleCode(
  kind: 'all' | 'fragment',
  file: string,
  region?: string,
  root: string = ROOT,
): string {
  const source = readFileSync(join(root, file), 'utf8')
  // The region markers are for fragments elsewhere; a reader of the whole file has no use for them.
  if (kind === 'all')
    return source
      .trimEnd()
      .split('\n')
      .filter((line) => !/^\s*\/\/ #(end)?region\b/.test(line))
      .join('\n')
  if (region === undefined) throw new Error(`a fragment of ${file} names no region`)
  const body = regionOf(source, file, region)
  const imports = importsUsedBy(source, file, body.join('\n'))
  return [`// An excerpt of ${file}, with the imports it uses`, ...imports, '// …', '', ...body].join('\n')
}

/** One file's text with every marked block (and `<<<` include) written from its example. */
export function syncedText(text: string, root: string = ROOT): string {
  const lines = text.split('\n')
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const include = INCLUDE.exec(line)
    const marker = MARKER.exec(line)
    if (!include && !marker) {
      out.push(line)
      continue
    }
    const file = include ? include[1] : marker?.[2]
    const region = include ? include[2] : marker?.[3]
    if (file === undefined) throw new Error(`unreadable marker: ${line}`)
    const kind = region === undefined ? 'all' : 'fragment'
    // A blank line after the comment: prettier keeps one between an HTML block and a fence.
    out.push(`<!-- ${kind} of ${file}${region === undefined ? '' : `#${region}`} -->`, '', '```ts')
    out.push(...exampleCode(kind, file, region, root).split('\n'), '```')
    if (marker) {
      // Skip the block the marker stands over (its old text).
      i++
      while (i < lines.length && lines[i] === '') i++
      if (!/^```(ts|typescript)\b/.test(lines[i] ?? ''))
        throw new Error(`${line} is not followed by a ts block`)
      i++
      while (i < lines.length && lines[i] !== '```') i++
    }
  }
  return out.join('\n')
}

/** The files whose marked blocks differ from their examples (rewritten when `write`). */
export function syncDocs(write: boolean, root: string = ROOT): string[] {
  const stale: string[] = []
  for (const file of markdownFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8')
    const synced = syncedText(text, root)
    if (synced === text) continue
    stale.push(relative(root, join(root, file)))
    if (write) writeFileSync(join(root, file), synced)
  }
  return stale
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const changed = syncDocs(true)
  console.log(
    changed.length === 0 ? 'docs:snippets: every block matches its example' : `rewrote ${changed.join(', ')}`,
  )
}
