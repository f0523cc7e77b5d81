// Bundles worker-entry.mjs with esbuild and runs it in workerd through Miniflare; prints the endpoint URL
// and stays up until stdin closes or a signal arrives.
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const bundle = await build({
  entryPoints: [join(here, 'worker-entry.mjs')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  // The conditions wrangler uses for Workers: packages pick their web builds (lru-cache's has no node: import).
  conditions: ['workerd', 'worker', 'browser', 'import', 'default'],
  target: 'es2022',
  write: false,
  logLevel: 'error',
})
const script = bundle.outputFiles[0].text

const mf = new Miniflare({
  modules: true,
  script,
  // Before 2025-06-01 workerd forbids code generation even while the Worker starts, as deployed Workers long did.
  compatibilityDate: '2025-05-01',
  host: '127.0.0.1',
  port: 0,
})
const url = await mf.ready
console.log(`LISTENING ${new URL('/mcp', url).href}`)

const stop = async () => {
  await mf.dispose()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.resume()
