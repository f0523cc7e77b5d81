/**
 * `npm start`: the demo server, built first only when `dist/` is missing or older than what it is built from
 * (a fresh clone after `npm install`, or an edit since the last build). An up-to-date `dist/` starts at once.
 * Arguments after `--` go to `toolwire demo` (e.g. `npm start -- --stdio`).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const INPUTS = ['src', 'scripts/build.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json']
const builtIn = (root) => join(root, 'dist', 'cli', 'main.js')

/** The newest modification time among the build's inputs: src/, the build script and its configuration. */
function newestInput(root) {
  let newest = 0
  const visit = (path) => {
    const stat = statSync(path)
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
    else newest = Math.max(newest, stat.mtimeMs)
  }
  for (const input of INPUTS) if (existsSync(join(root, input))) visit(join(root, input))
  return newest
}

/** True when the repository at `root` has no `dist/` yet, or an input changed after the last build. */
export function needsBuild(root) {
  const built = builtIn(root)
  return !existsSync(built) || statSync(built).mtimeMs < newestInput(root)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const built = builtIn(root)
  if (needsBuild(root)) {
    console.error('Building dist/ …')
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' })
  }
  // The CLI runs in this process, as if started as `toolwire demo …`: signals reach it directly.
  process.argv = [process.argv[0], built, 'demo', ...process.argv.slice(2)]
  await import(pathToFileURL(built).href)
}
