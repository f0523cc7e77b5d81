/* global Bun */
// Serves app.mjs with Bun.serve on a free loopback port and prints the endpoint URL.
import { handler } from './app.mjs'

const served = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler, idleTimeout: 0 })
console.log(`LISTENING http://127.0.0.1:${served.port}/mcp`)
