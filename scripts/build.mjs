/**
 * `npm run build`: type declarations from tsc, JavaScript bundled by rollup (TypeScript transpiled by
 * esbuild). Node's ES module loader costs about a millisecond per file at start-up, so a server should load
 * a handful of files, not a hundred modules: everything the root entry reaches goes into one `core` chunk,
 * each other entry keeps what only it uses, and shared code is never duplicated (so every class exists
 * once). Dependencies stay external: they are installed and updated as packages, never copied into the build.
 */
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build, transform } from 'esbuild'
import { rollup } from 'rollup'

const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/** dist/x/y.js (what package.json publishes) → src/x/y.ts (what it is built from). */
const sourceOf = (built) => `${root}${built.replace(/^\.?\/?dist\//, 'src/').replace(/\.js$/, '.ts')}`
const entries = [
  ...Object.values(pkg.exports)
    .map((target) => (typeof target === 'object' ? target.default : undefined))
    .filter((target) => typeof target === 'string' && target.startsWith('./dist/')),
  ...Object.values(pkg.bin),
]
const input = Object.fromEntries(
  entries.map((built) => [built.replace(/^\.?\/?dist\//, '').replace(/\.js$/, ''), sourceOf(built)]),
)
const packages = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })
const isExternal = (id) =>
  id.startsWith('node:') || packages.some((name) => id === name || id.startsWith(`${name}/`))

/** Resolves the `.js` specifiers of TypeScript sources to their `.ts` files and transpiles them. */
const typescript = {
  name: 'typescript',
  resolveId(source, importer) {
    if (!importer || !source.startsWith('.') || !source.endsWith('.js')) return null
    const candidate = fileURLToPath(new URL(source.replace(/\.js$/, '.ts'), `file://${importer}`))
    return existsSync(candidate) ? candidate : null
  },
  async transform(code, id) {
    if (!id.endsWith('.ts')) return null
    const result = await transform(code, { loader: 'ts', format: 'esm', target: 'es2022', sourcemap: true })
    return { code: result.code, map: result.map }
  },
}

/**
 * Keeps the built files ASCII. Node decodes a module's file as UTF-8 and V8 scans it: a file that is all ASCII
 * becomes a one-byte string at once, one with a single `§` in a comment is decoded into a two-byte one and
 * scanned as such (about 10 million instructions more for the core chunk at every start). esbuild already
 * writes code as ASCII (its `charset` default escapes strings, templates and patterns), so what is left is
 * in comments: each such UTF-16 unit becomes `?`, one for one, so no source-map column moves.
 */
const asciiOutput = {
  name: 'ascii-output',
  renderChunk(code) {
    if (!/[\u0080-\uffff]/.test(code)) return null
    return { code: code.replace(/[\u0080-\uffff]/g, '?'), map: null }
  },
}

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
})
// A declaration file that imports `node:*` names Node's types itself. TypeScript 6 and later include no
// `@types/*` package unless the project lists it in `types`, so without the directive a project that imports
// `toolwire/node` would fail on toolwire's own declarations ("Cannot find name 'node:http'"). tsc no longer
// writes such directives into declarations it emits, so they are added here, only where Node is used: the
// root entry and the others that run in a browser or a worker reach no declaration that has one.
const usesNode = /\bfrom 'node:|\bimport\('node:/
for (const file of readdirSync(`${root}dist`, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue
  const path = `${root}dist/${file}`
  const text = readFileSync(path, 'utf8')
  if (usesNode.test(text)) writeFileSync(path, `/// <reference types="node" />\n${text}`)
}

const rootEntry = input.index
let core
const bundle = await rollup({
  input,
  external: isExternal,
  plugins: [typescript, asciiOutput],
  preserveEntrySignatures: 'exports-only',
  onwarn(warning, warn) {
    if (warning.code === 'CIRCULAR_DEPENDENCY') return // type-level cycles between modules; harmless in ESM
    warn(warning)
  },
})
await bundle.write({
  dir: `${root}dist`,
  format: 'es',
  sourcemap: true,
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  // Everything the root entry reaches statically is one chunk; the rest is split by entry as usual.
  manualChunks(id, { getModuleInfo }) {
    if (!core) {
      core = new Set()
      const visit = (moduleId) => {
        if (core.has(moduleId) || isExternal(moduleId)) return
        core.add(moduleId)
        for (const imported of getModuleInfo(moduleId)?.importedIds ?? []) visit(imported)
      }
      visit(rootEntry)
    }
    return core.has(id) ? 'core' : undefined
  },
})
await bundle.close()
// The bin entries are run directly (`npx toolwire`, a global install's link): the shebang needs the exec bit.
for (const built of Object.values(pkg.bin)) chmodSync(new URL(`../${built}`, import.meta.url), 0o755)

// The inspector's page (`toolwire inspect`, `toolwire dev`): a browser bundle, built here so a user runs no
// bundler. Unlike the Node entries it includes its dependencies (Preact, htm, marked, DOMPurify): a browser
// has no node_modules to load them from.
const page = `${root}src/cli/inspector/page/`
const pageOut = `${root}dist/inspector-page/`
mkdirSync(pageOut, { recursive: true })
// The MCP Apps host (ext-apps' AppBridge, with the SDK and zod it needs) is a chunk the page loads only when a
// tool view is shown; the sandbox proxy's script is served by the inspector's second listener.
await build({
  entryPoints: { app: `${page}main.ts` },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outdir: pageOut,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
})
await build({
  entryPoints: { proxy: `${page}sandbox-proxy.ts` },
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outdir: pageOut,
  logLevel: 'warning',
})
for (const file of ['index.html', 'app.css']) copyFileSync(`${page}${file}`, `${pageOut}${file}`)

// The MCP Registry's server.json schema, with its LICENSE and README, which `toolwire registry` checks against.
const registrySchema = `${root}src/cli/registry-schema/`
mkdirSync(`${root}dist/registry-schema`, { recursive: true })
for (const file of readdirSync(registrySchema))
  copyFileSync(`${registrySchema}${file}`, `${root}dist/registry-schema/${file}`)
