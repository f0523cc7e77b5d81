/**
 * `npm run build`: type declarations from tsc, JavaScript from esbuild. Each public entry (package.json
 * `exports` and `bin`) is bundled with the modules it uses, shared code split into chunks so every class
 * exists once. Loading a few files instead of a hundred small modules is a large part of a server's
 * start-up on Node's ES module loader. Dependencies stay external: they are installed and updated as
 * packages, never copied into the build.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/** dist/x/y.js (what package.json publishes) → src/x/y.ts (what it is built from). */
const sourceOf = (built) => built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')
const entryPoints = [
  ...Object.values(pkg.exports)
    .map((target) => (typeof target === 'object' ? target.default : undefined))
    .filter((target) => typeof target === 'string' && target.startsWith('./dist/'))
    .map(sourceOf),
  ...Object.values(pkg.bin).map((target) => sourceOf(`./${target.replace(/^\.\//, '')}`)),
]
const packages = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
})
await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neutral: the client and the fetch handler run in browsers and edge runtimes; node:* stays external.
  platform: 'neutral',
  target: 'es2022',
  external: ['node:*', ...packages, ...packages.map((name) => `${name}/*`)],
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
})
