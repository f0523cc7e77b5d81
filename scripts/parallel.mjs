#!/usr/bin/env node
/**
 * Runs npm scripts side by side and prints each one's output in one piece when it ends, with its time:
 *
 *   node scripts/parallel.mjs typecheck lint docs:build
 *
 * `npm test` uses it for the checks that only read the sources and `dist/` and write to folders of their own
 * (tsc without emit, eslint and prettier, typedoc and vitepress into docs/api and docs/.vitepress/dist, which the
 * linters ignore). Each is one process that uses one core for most of its run, so two cores finish three of them
 * in about half the time
 * they take one after another. Exits 1 if any script failed, after all have ended, so
 * every failure is reported.
 */
import { spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
if (scripts.length === 0) {
  console.error('usage: node scripts/parallel.mjs <npm script>...')
  process.exit(2)
}

/** Runs `npm run -s <script>`; resolves with its exit code, everything it printed, and its time in seconds. */
function run(script) {
  const started = Date.now()
  return new Promise((resolve) => {
    // npm_execpath is the npm that started `npm test`; fall back to the npm on PATH when run by hand.
    const npm = process.env.npm_execpath
    const [command, args] = npm
      ? [process.execPath, [npm, 'run', '-s', script]]
      : ['npm', ['run', '-s', script]]
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    const finish = (code) => resolve({ script, code, output, seconds: (Date.now() - started) / 1000 })
    child.on('error', (error) => {
      output += `${error.message}\n`
      finish(1)
    })
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)))
  })
}

const results = await Promise.all(
  scripts.map((script) =>
    run(script).then((result) => {
      const verdict = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`
      process.stdout.write(`${result.output}${result.script}: ${verdict} in ${result.seconds.toFixed(1)} s\n`)
      return result
    }),
  ),
)
process.exit(results.every((result) => result.code === 0) ? 0 : 1)
