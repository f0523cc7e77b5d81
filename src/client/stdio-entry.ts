/**
 * toolwire/client/stdio: talk to a server that runs as a child process. Kept apart from `toolwire/client`
 * because it needs `node:child_process`. Every export is public API.
 */
import type { Client, ClientOptions } from './client.js'
import { connect } from './connect.js'
import { StdioTransport, type StdioTransportOptions } from './stdio.js'

/**
 * Spawns `command` and returns a Client speaking to it over stdio; `client.close()` ends the process.
 *
 * @example
 * ```ts
 * import { connectStdio } from 'toolwire/client/stdio'
 * const client = connectStdio({ command: 'node', args: ['server.js'] })
 * const result = await client.callTool('add', { a: 1, b: 2 })
 * await client.close()
 * ```
 */
export function connectStdio(target: StdioTransportOptions, options?: ClientOptions): Client {
  return connect(new StdioTransport(target), options)
}

export { StdioTransport }
export type { StdioTransportOptions }
