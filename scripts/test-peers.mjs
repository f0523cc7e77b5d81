/**
 * Installs the test peers (test/peers/package.json: Bun, Deno, Miniflare/workerd, Next.js, and the Node 22 the conformance
 * suite runs on) into test/peers/node_modules when they are missing or their lock file changed since the last install.
 * They live apart from the root package so that a plain `npm install` stays small and portable, and so that no
 * `node` binary in node_modules/.bin shadows the system one in npm scripts. `npm test` runs this first; a second
 * run with nothing changed returns at once.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('../test/peers', import.meta.url))
const lock = join(dir, 'package-lock.json')
const stamp = join(dir, 'node_modules', '.toolwire-peers-lock')

const wanted = createHash('sha256').update(readFileSync(lock)).digest('hex')
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) process.exit(0)

console.error('Installing the test peers (test/peers/package.json) …')
// npm's own CLI, run by this Node: `npm_execpath` is set when this script runs from an npm script.
const npm = process.env.npm_execpath
const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []]
execFileSync(command, [...args, 'ci', '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: dir,
  stdio: 'inherit',
})
writeFileSync(stamp, wanted)
