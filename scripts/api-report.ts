/**
 * The API report: every package entry's exported names, their kinds and their declarations as a consumer
 * sees them (read from the built `dist/*.d.ts` with the TypeScript compiler API), one markdown file per entry
 * in `api/`. The committed files are the reviewed public surface: test/api-report.test.ts regenerates them
 * and fails on any difference, so every change to the surface shows in a diff. `npm run api:update` (after
 * `npm run build`) rewrites them.
 *
 * API Extractor was weighed and not used: it wants one entry per config and a bundled .d.ts rollup, and the
 * package has eight entries sharing declarations; the compiler API reads them as they ship.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const API_DIR = join(ROOT, 'api')

type Target = { types: string; default: string }

/** One exported name of an entry. */
export interface ApiExport {
  readonly name: string
  /** `function`, `class`, `const`, `interface`, `type`, `enum`, joined with ` + ` when a name is both. */
  readonly kind: string
  /** True when the name exists at runtime (a function, class, constant or enum). */
  readonly runtime: boolean
  /** The declarations as the .d.ts states them, comments removed. */
  readonly declaration: string
  /** The doc comment has an `@example` tag. */
  readonly hasExample: boolean
  readonly deprecated: boolean
}

export interface ApiEntry {
  /** The import specifier: `toolwire`, `toolwire/client` … */
  readonly specifier: string
  /** The report's file name in api/. */
  readonly file: string
  readonly exports: readonly ApiExport[]
}

/** The package's entries, from package.json `exports`. */
export function packageEntries(): { specifier: string; file: string; types: string }[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string
    exports: Record<string, string | Target>
  }
  return Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === 'string'
      ? []
      : [
          {
            specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
            file: `${subpath === '.' ? pkg.name : subpath.slice(2).replaceAll('/', '-')}.api.md`,
            types: join(ROOT, target.types),
          },
        ],
  )
}

const KIND: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.FunctionDeclaration]: 'function',
  [ts.SyntaxKind.ClassDeclaration]: 'class',
  [ts.SyntaxKind.VariableDeclaration]: 'const',
  [ts.SyntaxKind.EnumDeclaration]: 'enum',
  [ts.SyntaxKind.InterfaceDeclaration]: 'interface',
  [ts.SyntaxKind.TypeAliasDeclaration]: 'type',
}

/** `export type { X }` somewhere on the way from the entry to the declaration: X is no runtime name there. */
function isTypeOnlyExport(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  for (let symbol: ts.Symbol | undefined = exported; symbol && symbol.flags & ts.SymbolFlags.Alias;) {
    for (const node of symbol.declarations ?? []) {
      if (ts.isExportSpecifier(node) && (node.isTypeOnly || node.parent.parent.isTypeOnly)) return true
      if (ts.isImportSpecifier(node) && (node.isTypeOnly || node.parent.parent.isTypeOnly)) return true
    }
    symbol = checker.getImmediateAliasedSymbol(symbol)
  }
  return false
}

/** Reads every entry's exports from the built declarations. */
export function readApi(): ApiEntry[] {
  const entries = packageEntries()
  for (const entry of entries) {
    if (!existsSync(entry.types)) throw new Error(`${entry.types} is missing: run \`npm run build\` first`)
  }
  const program = ts.createProgram(
    entries.map((entry) => entry.types),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  )
  const checker = program.getTypeChecker()
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed })

  return entries.map((entry) => {
    const source = program.getSourceFile(entry.types)
    const moduleSymbol = source && checker.getSymbolAtLocation(source)
    if (!moduleSymbol) throw new Error(`${entry.types}: not a module`)
    const exports = checker
      .getExportsOfModule(moduleSymbol)
      .map((exported): ApiExport => {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
        const declarations = symbol.declarations ?? []
        const kinds = [...new Set(declarations.map((node) => KIND[node.kind] ?? ts.SyntaxKind[node.kind]))]
        const printed = declarations.map((node) => {
          const shown = ts.isVariableDeclaration(node) ? node.parent.parent : node
          return printer.printNode(ts.EmitHint.Unspecified, shown, node.getSourceFile())
        })
        const tags = declarations.flatMap((node) => [...ts.getJSDocTags(node)])
        const runtime = (symbol.flags & ts.SymbolFlags.Value) !== 0 && !isTypeOnlyExport(checker, exported)
        return {
          name: exported.name,
          kind: kinds.join(' + '),
          runtime,
          declaration: [...new Set(printed)].join('\n'),
          hasExample:
            tags.some((tag) => tag.tagName.text === 'example') &&
            ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== '',
          deprecated: tags.some((tag) => tag.tagName.text === 'deprecated'),
        }
      })
      .sort((a, b) => a.name.localeCompare(b.name, 'en'))
    return { specifier: entry.specifier, file: entry.file, exports }
  })
}

/** The markdown report of one entry. */
export function renderEntry(entry: ApiEntry): string {
  const runtime = entry.exports.filter((exported) => exported.runtime)
  const typeOnly = entry.exports.filter((exported) => !exported.runtime)
  const lines = [
    `# API report: \`${entry.specifier}\``,
    '',
    '<!-- Generated by `npm run api:update` from the built .d.ts files; do not edit by hand. -->',
    '',
    `${runtime.length} runtime exports, ${typeOnly.length} type-only exports.`,
    '',
    '| Name | Kind |',
    '| --- | --- |',
    ...entry.exports.map(
      (exported) =>
        `| \`${exported.name}\` | ${exported.kind}${exported.deprecated ? ' (deprecated)' : ''} |`,
    ),
    '',
  ]
  for (const exported of entry.exports) {
    lines.push(`## \`${exported.name}\``, '', '```ts', exported.declaration, '```', '')
  }
  return `${lines.join('\n').trimEnd()}\n`
}

/** Runtime exports whose doc comment lacks a description or an `@example`. */
export function missingExamples(api: readonly ApiEntry[]): string[] {
  return api.flatMap((entry) =>
    entry.exports
      .filter((exported) => exported.runtime && !exported.hasExample)
      .map((exported) => `${entry.specifier}: ${exported.name}`),
  )
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(API_DIR, { recursive: true })
  for (const entry of readApi()) {
    writeFileSync(join(API_DIR, entry.file), renderEntry(entry))
    const runtime = entry.exports.filter((exported) => exported.runtime).length
    console.log(`${entry.file}: ${runtime} runtime, ${entry.exports.length - runtime} type-only`)
  }
}
