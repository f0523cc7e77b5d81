/* global Deno */
// Serves app.mjs with Deno.serve on a free loopback port and prints the endpoint URL.
import { handler } from './app.mjs'

Deno.serve({
  hostname: '127.0.0.1',
  port: 0,
  onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}/mcp`),
  handler,
})
