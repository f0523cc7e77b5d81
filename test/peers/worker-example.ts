// Runs examples/worker.ts in workerd (the Workers runtime) through Miniflare and calls it with the client, as
// `wrangler dev` would; test/peers/worker-example.test.ts runs this file. It lives here, not in examples/, because
// Miniflare is a test peer (test/peers/package.json), not a dependency of the package.
// Bundled as wrangler bundles it: with the `workerd`, `worker` and `browser` export conditions.
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { connect } from '../../dist/client/index.js'

const bundle = await build({
  entryPoints: [fileURLToPath(new URL('../../examples/worker.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  conditions: ['workerd', 'worker', 'browser', 'import', 'default'],
  target: 'es2022',
  write: false,
  logLevel: 'error',
})
const miniflare = new Miniflare({
  modules: true,
  script: bundle.outputFiles[0]?.text ?? '',
  compatibilityDate: '2025-05-01', // before 2025-06-01 workerd refuses code generation even at start-up
  host: '127.0.0.1',
  port: 0,
})
const url = new URL('/mcp', await miniflare.ready)

const client = connect({ url: url.href })
assert.deepEqual((await client.callTool('add', { a: 2, b: 3 })).content, [{ type: 'text', text: '5' }])
assert.deepEqual((await client.callTool('validator', {})).content, [{ type: 'text', text: 'interpreted' }])
await client.close()
await miniflare.dispose()
console.log('workers: ok')
